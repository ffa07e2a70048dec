module example.com/junitdemo

go 1.24
