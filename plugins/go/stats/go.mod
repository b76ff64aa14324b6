module stats

go 1.25
