package action

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gcloop/gcloop/bot/config"
)

// InputDoc is what action.yml says of one input.
type InputDoc struct {
	Description string
	Default     string
}

// InputDocs reads the description and default of every input from the
// text of action.yml, with the description's folded lines joined.
func InputDocs(actionYAML []byte) (map[string]InputDoc, error) {
	var doc struct {
		Inputs map[string]struct {
			Description string `yaml:"description"`
			Default     string `yaml:"default"`
		} `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(actionYAML, &doc); err != nil {
		return nil, fmt.Errorf("read action.yml: %w", err)
	}
	out := make(map[string]InputDoc, len(doc.Inputs))
	for name, in := range doc.Inputs {
		out[name] = InputDoc{Description: strings.Join(strings.Fields(in.Description), " "), Default: in.Default}
	}
	return out, nil
}

// Docs returns what `gcloop run --help` says of each input: a loop
// setting's description as the setting declares it (config.All), every
// other input's as action.yml gives it. A test keeps the two equal.
func Docs(actionYAML []byte) (map[string]InputDoc, error) {
	docs, err := InputDocs(actionYAML)
	if err != nil {
		return nil, err
	}
	for _, st := range config.All() {
		if st.Input {
			docs[st.Name] = InputDoc{Description: st.Doc}
		}
	}
	return docs, nil
}
