// Package gcloop holds what the repository's root gives the binary: the
// action's own description, action.yml, so that `gcloop run --help`
// describes each input in the words the runner's users read.
package gcloop

import _ "embed" // action.yml

// ActionYAML is the text of action.yml.
//
//go:embed action.yml
var ActionYAML []byte
