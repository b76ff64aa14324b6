module regex

go 1.25
