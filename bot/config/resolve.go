package config

import (
	"fmt"

	"github.com/gcloop/gcloop/decide"
)

// Settings are the resolved settings of one loop run.
type Settings struct {
	// Config holds the decision knobs, validated.
	Config decide.Config
	// Issues says whether fix issues are opened (default true).
	Issues bool
	// MaxIssues caps the fix issues opened per round; 0 means the
	// default, publish.DefaultMaxIssues (10).
	MaxIssues int
	// Labels are extra labels for fix issues, beside gcloop and
	// gcloop:<loop>.
	Labels []string
	// Commit says whether accepted test-only changes are pushed (default
	// true for coverage; never set for the other loops).
	Commit bool
	// TestPatterns and ForbiddenMarkers configure the test-only guard; nil
	// means the guard's built-in lists.
	TestPatterns, ForbiddenMarkers []string
	// Dispatch is the bare file name of the workflow dispatched for the
	// next round; "" dispatches nothing.
	Dispatch string
	// Permission is the least repository permission for /gc commands:
	// write (default), maintain or admin.
	Permission string
	// MaxRetries caps the /gc retry grants per PR (default 2).
	MaxRetries int
	// BotArtifacts are the artifacts a round of the bot downloads from a
	// completed workflow run; none means the bot runs no round for it.
	BotArtifacts []string
	// WithoutData is the check conclusion of a critique that converged
	// without critique data: "success", or "neutral" ("" is neutral).
	WithoutData string
}

// Overrides are the settings given as action inputs or flags; nil means
// not given. They win over the file.
type Overrides struct {
	MaxRounds    *int
	Threshold    *float64
	Target       *float64
	Layer        *string
	Stall        *int
	AuditPartial *string
	Issues       *bool
	MaxIssues    *int
	// Labels, TestPatterns and ForbiddenMarkers are nil when not given; a
	// non-nil empty list is given and empty.
	Labels           []string
	Commit           *bool
	TestPatterns     []string
	ForbiddenMarkers []string
	// Dispatch "" given explicitly turns dispatching off.
	Dispatch   *string
	Permission *string
	MaxRetries *int
}

// Default values of the settings that decide.Defaults does not hold.
const (
	DefaultPermission = "write"
	DefaultMaxRetries = 2
	// MaxIssuesCap is the largest max_issues.
	MaxIssuesCap = 100
)

// Resolve returns the settings of loop kind loop with id id (the loop's
// name when empty): action inputs over the file's section over the
// defaults. file may be nil. A section of the id that names another loop
// kind is a *decide.ParseError; invalid inputs are errors naming the input.
func Resolve(loop decide.Loop, id string, file *File, inputs Overrides) (Settings, error) {
	if l, err := decide.ParseLoop(string(loop)); err != nil || l != loop {
		return Settings{}, fmt.Errorf("resolve settings: unknown loop %q", loop)
	}
	if id == "" {
		id = string(loop)
	}
	sec := file.Section(id)
	if sec != nil && sec.Loop != loop {
		return Settings{}, decide.LineError(file.Name, sec.Line, "section %s is a %s loop, but this run is a %s loop", id, sec.Loop, loop)
	}
	if err := inputs.validate(loop); err != nil {
		return Settings{}, err
	}

	s := Settings{
		Config:     decide.Defaults(loop),
		Issues:     true,
		Commit:     loop == decide.Coverage,
		Permission: DefaultPermission,
		MaxRetries: DefaultMaxRetries,
	}
	if inputs.Layer != nil {
		s.Config.Layer = normLayer(*inputs.Layer)
	}
	sec.Apply(&s.Config)
	if sec != nil {
		setIf(&s.Issues, sec.Issues)
		setIf(&s.MaxIssues, sec.MaxIssues)
		setIf(&s.Commit, sec.Commit)
		setIf(&s.Dispatch, sec.Dispatch)
		setIf(&s.Permission, sec.Permission)
		setIf(&s.MaxRetries, sec.MaxRetries)
		setIf(&s.WithoutData, sec.WithoutData)
		s.Labels = listIf(s.Labels, sec.Labels)
		s.TestPatterns = listIf(s.TestPatterns, sec.TestPatterns)
		s.ForbiddenMarkers = listIf(s.ForbiddenMarkers, sec.ForbiddenMarkers)
		s.BotArtifacts = listIf(s.BotArtifacts, sec.BotArtifacts)
	}

	setIf(&s.Config.MaxRounds, inputs.MaxRounds)
	setIf(&s.Config.Threshold, inputs.Threshold)
	if inputs.Target != nil {
		v := *inputs.Target
		s.Config.Target = &v
	}
	setIf(&s.Config.Stall, inputs.Stall)
	setIf(&s.Config.AuditPartial, inputs.AuditPartial)
	setIf(&s.Issues, inputs.Issues)
	setIf(&s.MaxIssues, inputs.MaxIssues)
	setIf(&s.Commit, inputs.Commit)
	if inputs.Dispatch != nil {
		s.Dispatch = ""
		if *inputs.Dispatch != "" {
			s.Dispatch, _ = normDispatch(*inputs.Dispatch) // validated above
		}
	}
	setIf(&s.Permission, inputs.Permission)
	setIf(&s.MaxRetries, inputs.MaxRetries)
	s.Labels = listIf(s.Labels, inputs.Labels)
	s.TestPatterns = listIf(s.TestPatterns, inputs.TestPatterns)
	s.ForbiddenMarkers = listIf(s.ForbiddenMarkers, inputs.ForbiddenMarkers)

	if err := s.Config.Validate(); err != nil {
		return Settings{}, fmt.Errorf("invalid input: %w", err)
	}
	return s, nil
}

// validate checks the inputs that decide.Config.Validate does not cover, and
// the layer, whose error should name the input.
func (o Overrides) validate(loop decide.Loop) error {
	bad := func(input, msg string) error { return fmt.Errorf("invalid input %s: %s", input, msg) }
	if o.Layer != nil && *o.Layer != "" && normLayer(*o.Layer) == "" {
		return bad("layer", fmt.Sprintf("want L1, L2 or L3, got %q", clip(*o.Layer)))
	}
	if o.MaxIssues != nil && (*o.MaxIssues < 1 || *o.MaxIssues > MaxIssuesCap) {
		return bad("max-issues", fmt.Sprintf("want 1–%d, got %d", MaxIssuesCap, *o.MaxIssues))
	}
	if o.Commit != nil && *o.Commit && loop != decide.Coverage {
		return bad("commit", fmt.Sprintf("test-only commits are made by coverage loops only, not %s", loop))
	}
	if o.Dispatch != nil && *o.Dispatch != "" {
		if _, msg := normDispatch(*o.Dispatch); msg != "" {
			return bad("dispatch", msg)
		}
	}
	if o.Permission != nil {
		if msg := checkEnum(*o.Permission, permissions); msg != "" {
			return bad("permission", msg)
		}
	}
	if o.MaxRetries != nil && (*o.MaxRetries < 0 || *o.MaxRetries > maxRetriesCap) {
		return bad("max-retries", fmt.Sprintf("want an integer from 0 to %d, got %d", maxRetriesCap, *o.MaxRetries))
	}
	lists := []struct {
		input string
		items []string
		max   int
		check func(string) string
	}{
		{"labels", o.Labels, maxLabels, checkLabel},
		{"test-patterns", o.TestPatterns, maxListItems, checkPattern},
		{"forbidden-markers", o.ForbiddenMarkers, maxListItems, checkMarker},
	}
	for _, l := range lists {
		if len(l.items) > l.max {
			return bad(l.input, fmt.Sprintf("%d items, at most %d allowed", len(l.items), l.max))
		}
		for _, it := range l.items {
			if msg := l.check(it); msg != "" {
				return bad(l.input, msg)
			}
		}
	}
	return nil
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// listIf returns a copy of v when it is set (non-nil), else cur.
func listIf(cur, v []string) []string {
	if v == nil {
		return cur
	}
	return append([]string{}, v...)
}
