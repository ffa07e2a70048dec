module github.com/gcloop/gcloop

go 1.24

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/rogpeppe/go-internal v1.14.1 // indirect
)
