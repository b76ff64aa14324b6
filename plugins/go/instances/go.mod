module instances

go 1.25
