module @NAME@

go 1.25
