module github.com/gcloop/gcloop

go 1.24

require (
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.14.1
	gopkg.in/yaml.v3 v3.0.1
)

require (
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
