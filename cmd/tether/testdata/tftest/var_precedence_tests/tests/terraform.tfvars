c = "testsdir"
d = "testsdir"
