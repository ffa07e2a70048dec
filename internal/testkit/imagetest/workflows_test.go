package imagetest

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// workflowDirs hold workflows: the project's own and the documented
// examples, which GitHub never runs from docs/.
var workflowDirs = []string{".github/workflows", "docs/workflows"}

type workflow struct {
	file string // slash path from the module root
	name string
	on   map[string]any
	doc  map[string]any
	jobs map[string]map[string]any
}

func loadWorkflows(t *testing.T) []workflow {
	t.Helper()
	var out []workflow
	for _, dir := range workflowDirs {
		for _, ext := range []string{"*.yml", "*.yaml"} {
			files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), ext))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				file := path.Join(dir, filepath.Base(f))
				var doc map[string]any
				decodeYAML(t, file, &doc)
				w := workflow{file: file, doc: doc, jobs: map[string]map[string]any{}}
				w.name, _ = doc["name"].(string)
				switch on := doc["on"].(type) {
				case map[string]any:
					w.on = on
				case string:
					w.on = map[string]any{on: nil}
				case []any:
					w.on = map[string]any{}
					for _, e := range on {
						w.on[fmt.Sprint(e)] = nil
					}
				default:
					t.Errorf("%s: no `on:` triggers", file)
				}
				jobs, _ := doc["jobs"].(map[string]any)
				if len(jobs) == 0 {
					t.Errorf("%s: no jobs", file)
				}
				for id, j := range jobs {
					job, ok := j.(map[string]any)
					if !ok {
						t.Errorf("%s: job %s is not a mapping", file, id)
						continue
					}
					w.jobs[id] = job
				}
				out = append(out, w)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no workflow found")
	}
	return out
}

func (w workflow) triggered(events ...string) bool {
	for _, e := range events {
		if _, ok := w.on[e]; ok {
			return true
		}
	}
	return false
}

func steps(job map[string]any) []map[string]any {
	list, _ := job["steps"].([]any)
	var out []map[string]any
	for _, s := range list {
		if m, ok := s.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// usesGcloop reports whether a step runs the action: the published one or
// this repository's own.
func usesGcloop(step map[string]any) bool {
	u := str(step, "uses")
	return u == "./" || strings.HasPrefix(u, "gcloop/gcloop@")
}

// strings walks a YAML value and calls f on every string in it.
func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case map[string]any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case []any:
		for _, e := range v {
			walkStrings(e, f)
		}
	}
}

// permission is a job's effective permission for scope: its own block, else
// the workflow's; "write-all"/"read-all" are honoured.
func permission(w workflow, job map[string]any, scope string) string {
	p, ok := job["permissions"]
	if !ok {
		p, ok = w.doc["permissions"]
	}
	if !ok {
		return "write" // GitHub's default for a repository may be write
	}
	switch p := p.(type) {
	case string:
		return strings.TrimSuffix(p, "-all")
	case map[string]any:
		s, _ := p[scope].(string)
		return s
	}
	return ""
}

func TestWorkflowsAreWellFormedAndPinTheirPermissions(t *testing.T) {
	t.Parallel()
	for _, w := range loadWorkflows(t) {
		if w.name == "" {
			t.Errorf("%s: no name", w.file)
		}
		if _, ok := w.doc["permissions"]; !ok {
			t.Errorf("%s: no top-level permissions; want them explicit (least privilege)", w.file)
		}
		if w.triggered("pull_request_target") {
			t.Errorf("%s: pull_request_target runs with a write token on fork code; use pull_request + workflow_run", w.file)
		}
		walkStrings(w.doc, func(s string) {
			parts := strings.Split(s, "${{")
			for _, p := range parts[1:] {
				if !strings.Contains(p, "}}") {
					t.Errorf("%s: an expression ${{ is not closed in %q", w.file, s)
				}
			}
		})
		for id, job := range w.jobs {
			if _, ok := job["runs-on"]; !ok {
				t.Errorf("%s: job %s has no runs-on", w.file, id)
			}
			if _, ok := job["timeout-minutes"]; !ok {
				t.Errorf("%s: job %s has no timeout-minutes", w.file, id)
			}
		}
	}
}

func TestPrivilegedWorkflowsCheckOutNoPullRequestCode(t *testing.T) {
	t.Parallel()
	for _, w := range loadWorkflows(t) {
		if !w.triggered("workflow_run", "issue_comment") {
			continue
		}
		// These run with the base repository's token whatever the pull
		// request's origin: checking out its code is a "pwn request".
		for id, job := range w.jobs {
			for _, s := range steps(job) {
				if strings.HasPrefix(str(s, "uses"), "actions/checkout@") {
					t.Errorf("%s: job %s checks out code in a workflow_run/issue_comment workflow; read evidence from artifacts instead", w.file, id)
				}
			}
		}
	}
}

var outputRef = regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)`)

func TestWorkflowsUseTheActionsInputsAndOutputsOnly(t *testing.T) {
	t.Parallel()
	byFile := map[string]workflow{}
	byName := map[string]workflow{}
	all := loadWorkflows(t)
	for _, w := range all {
		byFile[w.file] = w
		byName[path.Dir(w.file)+"\x00"+w.name] = w
	}
	used := 0
	for _, w := range all {
		if wr, ok := w.on["workflow_run"].(map[string]any); ok {
			names, _ := wr["workflows"].([]any)
			for _, n := range names {
				if _, ok := byName[path.Dir(w.file)+"\x00"+fmt.Sprint(n)]; !ok {
					t.Errorf("%s: workflow_run names workflow %q, which no file beside it is called", w.file, n)
				}
			}
		}
		for id, job := range w.jobs {
			gcSteps := map[string]bool{}
			for _, s := range steps(job) {
				if !usesGcloop(s) {
					continue
				}
				used++
				if sid := str(s, "id"); sid != "" {
					gcSteps[sid] = true
				}
				with, _ := s["with"].(map[string]any)
				for k := range with {
					if _, ok := contractInputs[k]; !ok {
						t.Errorf("%s: job %s passes input %q, which action.yml does not declare", w.file, id, k)
					}
				}
				checkGcloopStep(t, w, id, job, s, with, byFile)
			}
			walkStrings(job, func(s string) {
				for _, m := range outputRef.FindAllStringSubmatch(s, -1) {
					if gcSteps[m[1]] && !slices.Contains(contractOutputs, m[2]) {
						t.Errorf("%s: job %s reads output %q, which action.yml does not declare", w.file, id, m[2])
					}
				}
			})
		}
	}
	if used == 0 {
		t.Error("no workflow uses the action")
	}
}

// checkGcloopStep checks one step that runs the action against DESIGN §12.
func checkGcloopStep(t *testing.T, w workflow, id string, job, step, with map[string]any, byFile map[string]workflow) {
	t.Helper()
	where := fmt.Sprintf("%s: job %s", w.file, id)
	if w.mergeGroupOnly() {
		checkMergeGroupStep(t, w, id, job)
		return
	}
	if w.file != ".github/workflows/example-dry-run.yml" {
		// On the job: a workflow-level group also holds the runs whose job
		// is skipped (a comment without a command), and a newer pending run
		// cancels the pending one — a round.
		if _, ok := w.doc["concurrency"]; ok {
			t.Errorf("%s: a workflow-level concurrency group; want it on the gcloop jobs, so that skipped runs never cancel a pending round", w.file)
		}
		c, _ := job["concurrency"].(map[string]any)
		if g := str(c, "group"); !strings.Contains(g, "gcloop-") {
			t.Errorf("%s: concurrency group %q; want one gcloop-<loop>-<pull request> group so rounds of a pull request never race", where, g)
		}
		// The key is the pull request's number in every job of a loop: a
		// fork's workflow_run lists no pull request, and a group keyed by
		// its head sha would run beside the pull request's /gc commands.
		if g := str(c, "group"); strings.Contains(g, "head_sha") || !containsAny(g,
			"github.event.issue.number", "needs.pr.outputs.number", "github.event.pull_request.number", "inputs.pr") {
			t.Errorf("%s: concurrency group %q; want it keyed by the pull request's number (a fork's run: found by its head sha in a job before)", where, g)
		}
		if c["cancel-in-progress"] != false {
			t.Errorf("%s: concurrency cancel-in-progress must be false: a cancelled gcloop can leave a half-made round", where)
		}
	}
	if w.triggered("pull_request") {
		// A fork's pull_request run gets a read-only token.
		if !strings.Contains(str(step, "if"), "head.repo.full_name == github.repository") {
			t.Errorf("%s: gcloop runs on pull_request without limiting itself to this repository's branches; forks get a read-only token", where)
		}
	}
	loop, _ := with["loop"].(string)
	commits := loop == "coverage" && fmt.Sprint(with["commit"]) != "false" && !w.triggered("issue_comment")
	if got := permission(w, job, "contents"); got == "write" && !commits {
		t.Errorf("%s: contents: write, but it pushes no commit; want read", where)
	}
	if commits && permission(w, job, "contents") != "write" {
		t.Errorf("%s: coverage commits need contents: write", where)
	}
	if str(with, "artifacts") != "" && permission(w, job, "actions") == "" {
		t.Errorf("%s: reads artifacts without actions: read", where)
	}
	for scope, want := range map[string]string{"pull-requests": "write", "issues": "write"} {
		if with["dry-run"] == nil && permission(w, job, scope) != want {
			t.Errorf("%s: %s is %q; want %s (comment, reactions, fix issues)", where, scope, permission(w, job, scope), want)
		}
	}
	if with["dry-run"] == nil && fmt.Sprint(with["check"]) != "false" && permission(w, job, "checks") != "write" {
		t.Errorf("%s: no checks: write; rounds write the check run branch protection requires, and /gc approve settles it (or set check: false)", where)
	}
	if d, ok := with["dispatch"].(string); ok {
		if permission(w, job, "actions") != "write" {
			t.Errorf("%s: dispatches %s without actions: write", where, d)
		}
		target, ok := byFile[path.Join(path.Dir(w.file), d)]
		if !ok {
			t.Errorf("%s: dispatches %s, which is not beside it", where, d)
			return
		}
		wd, ok := target.on["workflow_dispatch"].(map[string]any)
		inputs, _ := wd["inputs"].(map[string]any)
		if !ok || inputs["pr"] == nil {
			t.Errorf("%s: dispatches %s, which has no workflow_dispatch trigger with a pr input", where, d)
		}
	}
}

func TestEveryLoopHasADocumentedWorkflow(t *testing.T) {
	t.Parallel()
	loops := map[string]bool{}
	for _, w := range loadWorkflows(t) {
		for _, job := range w.jobs {
			for _, s := range steps(job) {
				if with, _ := s["with"].(map[string]any); usesGcloop(s) && strings.HasPrefix(w.file, "docs/") {
					loops[str(with, "loop")] = true
				}
			}
		}
	}
	var got []string
	for l := range loops {
		got = append(got, l)
	}
	sort.Strings(got)
	if want := []string{"audit", "coverage", "critique", "review", "validation"}; !slices.Equal(got, want) {
		t.Errorf("loops with an example in docs/workflows: %v; want %v", got, want)
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// goCommand finds a step that runs the go command.
var goCommand = regexp.MustCompile(`(?m)(^|[;&|]\s*|\s)go (run|test|build|install|vet|mod)\b`)

// A job that runs the go command sets Go up first: a runner image's Go is
// whatever version it happens to ship, or none.
func TestWorkflowsSetUpGoBeforeRunningIt(t *testing.T) {
	t.Parallel()
	for _, w := range loadWorkflows(t) {
		for id, job := range w.jobs {
			setUp := false
			for i, s := range steps(job) {
				if strings.HasPrefix(str(s, "uses"), "actions/setup-go@") {
					setUp = true
				}
				if goCommand.MatchString(str(s, "run")) && !setUp {
					t.Errorf("%s: job %s step %d runs go without actions/setup-go before it", w.file, id, i+1)
				}
			}
		}
	}
}
