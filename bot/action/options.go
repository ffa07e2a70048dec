// Package action is the GitHub Action: it gathers the inputs and the
// workflow context, reads the round's evidence from the workspace and from
// workflow artifacts, decides, and acts on the pull request — the report
// comment that carries the state, fix issues, test-only commits, the next
// round's dispatch and the /gc commands.
package action

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/identity"
	"github.com/gcloop/gcloop/decide"
)

// InputNames are the action's inputs (DESIGN §5.6), in action.yml order.
var InputNames = []string{
	"token", "loop", "id", "evidence", "artifacts", "run-id", "max-rounds", "threshold",
	"target", "layer", "stall", "issues", "labels", "commit", "test-patterns", "dispatch",
	"comment", "fail-on", "config", "timeout", "dry-run", "discoveries", "max-issues", "baseline",
	"state-key", "bot-login", "check",
}

// Options are the action's inputs, gathered and validated in one place.
type Options struct {
	Token     string
	Loop      decide.Loop // "" = sniffed from the evidence
	ID        string      // loop id; "" = the loop name
	Evidence  []string    // paths or globs in the workspace
	Artifacts []string    // artifact names to download
	RunID     int64       // run whose artifacts to read; 0 = this run or the triggering workflow_run
	Comment   bool
	// Check writes the round's check run "gcloop / <id>" (input check).
	Check   bool
	FailOn  string // never, fix or escalate
	Config  string // path of the configuration file in the repository
	Timeout time.Duration
	DryRun  bool
	// Discoveries is a discoveries.ndjson to append gc_decision and
	// fix_applied lines to; "" = none.
	Discoveries string
	// StateKey is the state-key secret: the state is signed and only
	// signed state is trusted (DESIGN §4); "" = unsigned.
	StateKey string
	// BotLogin is the bot-login input: the identity of an App
	// installation token handed to the action; "" = told by the token.
	BotLogin string
	// Baseline is a workspace file of test results of the unchanged head
	// (JUnit XML or go test -json): the coverage guard refuses a round
	// that loses or breaks a test that passed there; "" = none.
	Baseline string
	// Overrides are the inputs that layer over the configuration file.
	Overrides config.Overrides
}

// Gather reads the inputs through get (INPUT_<NAME> with hyphens kept, or
// flags of the same names) and validates them. Every problem names the
// input.
func Gather(get func(name string) string) (*Options, error) {
	o := &Options{Token: get("token"), ID: get("id"), Config: get("config"), Discoveries: get("discoveries"),
		StateKey: get("state-key"), BotLogin: get("bot-login"), Baseline: get("baseline")}
	var errs InputErrors
	bad := func(name, format string, args ...any) {
		errs = append(errs, InputError{Name: name, Msg: fmt.Sprintf(format, args...)})
	}
	if s := get("loop"); s != "" {
		l, err := decide.ParseLoop(s)
		if err != nil {
			bad("loop", "%v", err)
		}
		o.Loop = l
	}
	if o.BotLogin != "" && !identity.ValidLogin(o.BotLogin) {
		bad("bot-login", "%q: want a GitHub login such as my-app[bot]", o.BotLogin)
	}
	if o.ID != "" && !decide.ValidID(o.ID) {
		bad("id", "%q: %s", o.ID, decide.IDRule)
	}
	o.Evidence = splitList(get("evidence"))
	o.Artifacts = splitList(get("artifacts"))
	if s := get("run-id"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			bad("run-id", "%q: want a workflow run id", s)
		}
		o.RunID = n
	}
	o.Comment = boolInput(get, "comment", true, bad)
	o.Check = boolInput(get, "check", true, bad)
	o.DryRun = boolInput(get, "dry-run", false, bad)
	o.FailOn = get("fail-on")
	switch o.FailOn {
	case "":
		o.FailOn = "never"
	case "never", "fix", "escalate":
	default:
		bad("fail-on", "%q: want never, fix or escalate", o.FailOn)
	}
	if o.Config == "" {
		o.Config = ".github/gcloop.yml"
	}
	o.Timeout = 5 * time.Minute
	if s := get("timeout"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			bad("timeout", "%q: want a duration such as 5m or 90s", s)
		}
		o.Timeout = d
	}
	gatherSettings(get, &o.Overrides, bad)
	if len(errs) > 0 {
		return nil, errs
	}
	return o, nil
}

// InputError is one unusable input: its name and what was expected.
type InputError struct {
	Name string // the input's name, as in action.yml
	Msg  string // the value and what was expected
}

func (e InputError) Error() string { return "input " + e.Name + ": " + e.Msg }

// InputErrors are all the unusable inputs of one run, in the order Gather
// checks them; Error joins them in one line, and each can be shown on its
// own (one ::error annotation per input).
type InputErrors []InputError

func (es InputErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

func boolInput(get func(string) string, name string, def bool, bad func(string, string, ...any)) bool {
	switch s := strings.ToLower(get(name)); s {
	case "":
		return def
	case "true":
		return true
	case "false":
		return false
	default:
		bad(name, "%q: want true or false", s)
		return def
	}
}

func intInput(get func(string) string, name string, bad func(string, string, ...any)) *int {
	s := get(name)
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		bad(name, "%q: want an integer", s)
		return nil
	}
	return &n
}

func floatInput(get func(string) string, name string, bad func(string, string, ...any)) *float64 {
	s := get(name)
	if s == "" {
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		bad(name, "%q: want a number", s)
		return nil
	}
	return &v
}

// splitList splits a list input (evidence, artifacts, labels,
// test-patterns): entries are separated by newlines or commas, trimmed of
// spaces, and empty ones are dropped. A comma always separates: there is
// no quoting, so a path with a comma is matched by a glob instead.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
