package server

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestDocsListEverySetting: docs/bot.md's table names every setting and its
// flag, and names no setting the bot does not read.
func TestDocsListEverySetting(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "bot.md"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, v := range Vars {
		known[v.Env] = true
		row := "| `" + v.Env + "` | `--" + v.Flag + "` |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/bot.md has no row %q", row)
		}
	}
	// The rows make one table: a row after a paragraph would render as
	// text, not as a row of the settings table.
	lines := strings.Split(string(doc), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "| `GCLOOP_") && (i == 0 || !strings.HasPrefix(lines[i-1], "|")) {
			t.Errorf("docs/bot.md:%d: the row of a setting follows no table row: %.60s", i+1, l)
		}
	}
	for _, m := range regexp.MustCompile("`(GCLOOP_[A-Z_]+)`").FindAllStringSubmatch(string(doc), -1) {
		if !known[m[1]] {
			t.Errorf("docs/bot.md names %s, which the bot does not read", m[1])
		}
	}
}

// TestKubernetesManifestUsesKnownSettings: deploy/kubernetes.yaml parses,
// and its container's environment names settings the bot reads, the
// webhook secret among them.
func TestKubernetesManifestUsesKnownSettings(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("..", "..", "deploy", "kubernetes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]bool{}
	for _, v := range Vars {
		known[v.Env] = true
	}
	type container struct {
		Args []string `yaml:"args"`
		Env  []struct {
			Name string `yaml:"name"`
		} `yaml:"env"`
	}
	var doc struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Template struct {
				Spec struct {
					Containers []container `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	dec := yaml.NewDecoder(f)
	deployments := 0
	for dec.Decode(&doc) == nil {
		if doc.Kind != "Deployment" {
			continue
		}
		deployments++
		for _, c := range doc.Spec.Template.Spec.Containers {
			names := map[string]bool{}
			for _, e := range c.Env {
				names[e.Name] = true
				if !known[e.Name] {
					t.Errorf("the manifest sets %s, which the bot does not read", e.Name)
				}
			}
			if len(c.Args) == 0 || c.Args[0] != "bot" || !names["GCLOOP_WEBHOOK_SECRET"] || !names["GCLOOP_DATABASE_URL"] {
				t.Errorf("container args %v, env %v: want gcloop bot with a webhook secret and a database", c.Args, names)
			}
		}
		doc.Kind = ""
	}
	if deployments != 1 {
		t.Errorf("%d Deployments in the manifest, want 1", deployments)
	}
}
