d = "auto"
