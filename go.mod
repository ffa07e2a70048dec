module github.com/gcloop/gcloop

go 1.25

require (
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.14.1
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/getkin/kin-openapi v0.133.0 // indirect
	github.com/google/go-github/v62 v62.0.0 // indirect
	github.com/google/go-querystring v1.1.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/sethvargo/go-githubactions v1.4.0 // indirect
	golang.org/x/oauth2 v0.30.0 // indirect
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
