module example.com/gomod

go 1.24
