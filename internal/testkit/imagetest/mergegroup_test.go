package imagetest

import (
	"fmt"
	"strings"
	"testing"
)

// mergeGroupOnly reports whether a workflow runs on merge queues only: its
// gcloop step writes a check on the group's commit and nothing on a pull
// request.
func (w workflow) mergeGroupOnly() bool { return len(w.on) == 1 && w.triggered("merge_group") }

// checkMergeGroupStep checks a gcloop step of a merge queue workflow: it
// reads the group's pull requests and their reports, writes the check (or
// the status standing in for it), and holds no write permission beyond.
func checkMergeGroupStep(t *testing.T, w workflow, id string, job map[string]any) {
	t.Helper()
	where := fmt.Sprintf("%s: job %s", w.file, id)
	c, _ := job["concurrency"].(map[string]any)
	if g := str(c, "group"); !strings.Contains(g, "gcloop-") || !strings.Contains(g, "github.event.merge_group.head_sha") {
		t.Errorf("%s: concurrency group %q; want a gcloop-<loop>-<group commit> group", where, g)
	}
	if c["cancel-in-progress"] != false {
		t.Errorf("%s: concurrency cancel-in-progress must be false", where)
	}
	want := map[string]string{"checks": "write", "statuses": "write", "contents": "read", "issues": "read", "pull-requests": "read", "actions": ""}
	for scope, level := range want {
		if got := permission(w, job, scope); got != level {
			t.Errorf("%s: %s is %q; want %q", where, scope, got, level)
		}
	}
}
