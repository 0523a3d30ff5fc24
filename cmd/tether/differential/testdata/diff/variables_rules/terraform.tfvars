size  = null
label = null
shape = null
