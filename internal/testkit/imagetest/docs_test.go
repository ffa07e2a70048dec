package imagetest

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// embedded matches a workflow file shown in README.md: its path in
// backquotes, a colon, then the file in a yaml block.
var embedded = regexp.MustCompile("(?s)`(docs/workflows/[a-z0-9-]+\\.yml)`:\n\n```yaml\n(.*?)```")

func TestDocsShowTheExampleWorkflowsByteForByte(t *testing.T) {
	t.Parallel()
	doc := string(readRoot(t, "README.md"))
	shown := map[string]bool{}
	for _, m := range embedded.FindAllStringSubmatch(doc, -1) {
		shown[m[1]] = true
		if file := string(readRoot(t, m[1])); m[2] != file {
			t.Errorf("README.md shows %s differently from the file; copy the file into the page again", m[1])
		}
	}
	for _, w := range loadWorkflows(t) {
		if strings.HasPrefix(w.file, "docs/workflows/") && !shown[w.file] {
			t.Errorf("README.md does not show %s", w.file)
		}
	}
}

// tableNames returns the first column of the markdown table that follows
// the heading, backquotes removed.
func tableNames(t *testing.T, doc, heading string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	var names []string
	for _, line := range strings.Split(rest, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if name == "input" || name == "output" {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func TestDocsTablesListTheContractsInputsAndOutputs(t *testing.T) {
	t.Parallel()
	doc := string(readRoot(t, "README.md"))
	var inputs []string
	for name := range contractInputs {
		inputs = append(inputs, name)
	}
	sort.Strings(inputs)
	if got := tableNames(t, doc, "## Inputs"); !slices.Equal(got, inputs) {
		t.Errorf("README.md inputs table: %v; want %v", got, inputs)
	}
	outputs := slices.Clone(contractOutputs)
	sort.Strings(outputs)
	if got := tableNames(t, doc, "## Outputs"); !slices.Equal(got, outputs) {
		t.Errorf("README.md outputs table: %v; want %v", got, outputs)
	}
}
