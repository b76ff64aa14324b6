module wordcount

go 1.25
