package layout

import (
	"strings"
	"testing"
)

// dryRunEntries are the packages `gcloop run --dry-run` goes through to
// read an evidence file and render the report: the action driver (what
// the run command calls; it reads the workspace's evidence through the
// registry), the round it plans and the report it renders. The run
// command's own package is left out: it holds every other subcommand too.
var dryRunEntries = []string{"./bot/action", "./bot/round", "./bot/report"}

// dryRunBound is how many of the module's packages that path may go
// through, the entries and the readers included. It is today's figure
// (24: with the path matcher the guard and the push plan share, the one
// line scanner of the coverage and evidence readers, internal/lines, the
// readers' one error type, internal/parse, and the client's sleep,
// internal/wait).
// The packages a dry run enters are far fewer (entered_test.go); this
// bound keeps the whole closure from growing back.
const dryRunBound = 24

func TestDryRunPathIsShort(t *testing.T) {
	t.Parallel()
	var path []string
	for _, p := range listPackages(t, true, dryRunEntries...) {
		if rel, ok := modRel(p.ImportPath); ok {
			path = append(path, rel)
		}
	}
	t.Logf("%d packages of the module on the dry run's path: %s", len(path), strings.Join(path, " "))
	if len(path) > dryRunBound {
		t.Errorf("a dry run goes through %d packages of the module, more than %d:\n\t%s", len(path), dryRunBound, strings.Join(path, "\n\t"))
	}
	for _, want := range []string{"bot/action", "bot/round", "bot/report", "decide"} {
		found := false
		for _, p := range path {
			found = found || p == want
		}
		if !found {
			t.Errorf("%s is not on the dry run's path; the list of entries is stale", want)
		}
	}
}
