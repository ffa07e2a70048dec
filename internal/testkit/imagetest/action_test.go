package imagetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// actionFile is the part of action.yml the contract fixes.
type actionFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Required    *bool   `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
	} `yaml:"outputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
	} `yaml:"runs"`
}

// contractInputs are the action's inputs and their defaults (DESIGN §5.6).
// An empty default means "not given": the configuration file, read from the
// base branch, or the loop's built-in default decides. That is why issues
// and commit, whose effective defaults are true (commit: for coverage), are
// empty here — a non-empty default would always override the file (§9).
var contractInputs = map[string]string{
	"token":         "${{ github.token }}",
	"loop":          "",
	"id":            "",
	"evidence":      "",
	"artifacts":     "",
	"run-id":        "",
	"max-rounds":    "",
	"threshold":     "",
	"target":        "",
	"layer":         "",
	"stall":         "",
	"issues":        "",
	"labels":        "",
	"commit":        "",
	"test-patterns": "",
	"dispatch":      "",
	"comment":       "true",
	"fail-on":       "never",
	"config":        ".github/gcloop.yml",
	"timeout":       "5m",
	"dry-run":       "false",
	"discoveries":   "",
	"max-issues":    "",
	"state-key":     "",
	"bot-login":     "",
	"check":         "true",
	"baseline":      "",
}

// contractOutputs are the action's step outputs (DESIGN §5.5).
var contractOutputs = []string{
	"decision", "verdict", "round", "max-rounds", "score", "coverage", "status",
	"report", "decision-json", "tasks", "issues", "commit", "comment-url",
}

// brandingColors are the colors GitHub Marketplace accepts.
var brandingColors = map[string]bool{
	"white": true, "black": true, "yellow": true, "blue": true, "green": true,
	"orange": true, "red": true, "purple": true, "gray-dark": true,
}

func readAction(t *testing.T) actionFile {
	t.Helper()
	var a actionFile
	decodeYAML(t, "action.yml", &a)
	return a
}

func TestActionInputsAreExactlyTheContractsWithItsDefaults(t *testing.T) {
	t.Parallel()
	a := readAction(t)
	got := map[string]string{}
	for name, in := range a.Inputs {
		if in.Default == nil {
			t.Errorf("input %s: no default; want one written out, even when empty", name)
			got[name] = ""
		} else {
			got[name] = *in.Default
		}
		if in.Description == "" {
			t.Errorf("input %s: no description", name)
		}
		if in.Required == nil || *in.Required {
			t.Errorf("input %s: want required: false (every input has a default)", name)
		}
	}
	if diff := cmp.Diff(contractInputs, got); diff != "" {
		t.Errorf("action.yml inputs and defaults differ from DESIGN §5.6 (-contract +action.yml):\n%s", diff)
	}
}

func TestActionOutputsAreExactlyTheContracts(t *testing.T) {
	t.Parallel()
	a := readAction(t)
	want := map[string]bool{}
	for _, name := range contractOutputs {
		want[name] = true
	}
	got := map[string]bool{}
	for name, out := range a.Outputs {
		got[name] = true
		if out.Description == "" {
			t.Errorf("output %s: no description", name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("action.yml outputs differ from DESIGN §5.5 (-contract +action.yml):\n%s", diff)
	}
}

func TestActionRunsTheDockerfileWithTheRunCommand(t *testing.T) {
	t.Parallel()
	a := readAction(t)
	if a.Name == "" || a.Description == "" || a.Author == "" {
		t.Errorf("name %q, description %q, author %q: want all three set", a.Name, a.Description, a.Author)
	}
	if a.Branding.Icon == "" || !brandingColors[a.Branding.Color] {
		t.Errorf("branding icon %q color %q: want an icon and one of GitHub's colors", a.Branding.Icon, a.Branding.Color)
	}
	if a.Runs.Using != "docker" || a.Runs.Image != "Dockerfile" {
		t.Errorf("runs using %q image %q: want docker and Dockerfile", a.Runs.Using, a.Runs.Image)
	}
	if diff := cmp.Diff([]string{"run"}, a.Runs.Args); diff != "" {
		t.Errorf("runs.args (-want +got):\n%s", diff)
	}
}
