module plaingo

go 1.25
