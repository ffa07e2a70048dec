package action

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop"
	"github.com/gcloop/gcloop/bot/config"
)

// nonSettingInputs are the action's inputs that are no loop setting: what
// to read, where to write, how to run. Every other input is a declared
// setting.
var nonSettingInputs = []string{
	"token", "loop", "id", "evidence", "artifacts", "run-id", "comment", "fail-on", "config",
	"timeout", "dry-run", "discoveries", "state-key", "bot-login", "check", "baseline",
}

// action.yml and the declared settings agree: every setting that is an
// input is one in action.yml, with the same description and an empty
// default (not given: the file's value, else the loop's); every input of
// action.yml is a setting or one of the listed others; InputNames lists
// them all in action.yml's order.
func TestActionYAMLInputsAreTheDeclaredSettings(t *testing.T) {
	t.Parallel()
	docs, err := InputDocs(gcloop.ActionYAML)
	if err != nil {
		t.Fatal(err)
	}
	var settingInputs []string
	for _, st := range config.All() {
		if !st.Input {
			continue
		}
		settingInputs = append(settingInputs, st.Name)
		d, ok := docs[st.Name]
		if !ok {
			t.Errorf("setting %s is an input, but action.yml has no input %s", st.Name, st.Name)
			continue
		}
		if d.Description != st.Doc {
			t.Errorf("input %s: action.yml's description and the setting's differ:\naction.yml: %s\nsetting:    %s", st.Name, d.Description, st.Doc)
		}
		if d.Default != "" {
			t.Errorf("input %s: action.yml's default is %q, want empty (not given)", st.Name, d.Default)
		}
	}
	for name := range docs {
		isSetting, isOther := slices.Contains(settingInputs, name), slices.Contains(nonSettingInputs, name)
		switch {
		case isSetting && isOther:
			t.Errorf("input %s is a declared setting and listed as none", name)
		case !isSetting && !isOther:
			t.Errorf("action.yml's input %s is no declared setting (config.All) and not listed among the others", name)
		}
	}
	for _, name := range nonSettingInputs {
		if _, ok := docs[name]; !ok {
			t.Errorf("input %s is listed, but action.yml has none", name)
		}
	}
	names := make([]string, 0, len(docs))
	for name := range docs {
		names = append(names, name)
	}
	sort.Strings(names)
	got := slices.Clone(InputNames)
	sort.Strings(got)
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("InputNames and action.yml's inputs differ (-action.yml +InputNames):\n%s", diff)
	}
	if ordered := orderIn(InputNames, settingInputs); !slices.Equal(ordered, settingInputs) {
		t.Errorf("the settings are declared in the order %v, action.yml has them in the order %v", settingInputs, ordered)
	}
}

// orderIn returns the items of some in the order of all.
func orderIn(all, some []string) []string {
	var out []string
	for _, s := range all {
		if slices.Contains(some, s) {
			out = append(out, s)
		}
	}
	return out
}

// Every setting that is an input reaches its field when given, and stays
// nil (not given) when its input is empty.
func TestGatherReadsEverySettingInput(t *testing.T) {
	t.Parallel()
	sample := map[string]string{"layer": "L2", "dispatch": "next.yml", "max-issues": "5"}
	for _, st := range config.All() {
		if !st.Input {
			continue
		}
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			in := map[string]string{"token": "t"}
			if v, ok := sample[st.Name]; ok {
				in[st.Name] = v
			} else {
				switch st.Field(&config.Values{}).(type) {
				case **int, **float64:
					in[st.Name] = "3"
				case **bool:
					in[st.Name] = "true"
				default:
					in[st.Name] = "x"
				}
			}
			o, err := Gather(inputs(in))
			if err != nil {
				t.Fatal(err)
			}
			if given(st.Field(&o.Overrides)) != 1 {
				t.Errorf("input %s=%q did not reach its setting: %+v", st.Name, in[st.Name], o.Overrides)
			}
			empty, err := Gather(inputs(map[string]string{"token": "t", st.Name: ""}))
			if err != nil {
				t.Fatal(err)
			}
			if given(st.Field(&empty.Overrides)) != 0 {
				t.Errorf("an empty input %s was taken as given: %+v", st.Name, empty.Overrides)
			}
		})
	}
}

// given is 1 when a setting's field holds a value, else 0.
func given(field any) int {
	switch f := field.(type) {
	case **int:
		return b2i(*f != nil)
	case **float64:
		return b2i(*f != nil)
	case **bool:
		return b2i(*f != nil)
	case **string:
		return b2i(*f != nil)
	case *[]string:
		return b2i(*f != nil)
	}
	panic(fmt.Sprintf("a setting of type %T", field))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
