module sdkstore

go 1.25
