package config

import (
	"fmt"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
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
// kind is a *parse.Error; invalid inputs are errors naming the input.
func Resolve(loop decide.Loop, id string, file *File, inputs Overrides) (Settings, error) {
	if l, err := decide.ParseLoop(string(loop)); err != nil || l != loop {
		return Settings{}, fmt.Errorf("resolve settings: unknown loop %q", loop)
	}
	if id == "" {
		id = string(loop)
	}
	sec := file.Section(id)
	if sec != nil && sec.Loop != loop {
		return Settings{}, parse.LineError(file.Name, sec.Line, "section %s is a %s loop, but this run is a %s loop", id, sec.Loop, loop)
	}
	in, err := inputs.check(loop)
	if err != nil {
		return Settings{}, err
	}

	s := Settings{Config: decide.Defaults(loop)}
	s.defaults(loop)
	if sec != nil {
		s.layer(&sec.Values, false)
	}
	s.layer(&in, false)
	if sec != nil {
		s.Config.Target = layerTarget(s.Config, sec.Layers)
	}
	if err := s.Config.Validate(); err != nil {
		return Settings{}, fmt.Errorf("invalid input: %w", err)
	}
	return s, nil
}

// defaults sets the declared default of every setting of loop kind loop
// that has one.
func (s *Settings) defaults(loop decide.Loop) {
	for _, st := range settings {
		if st.Default == nil || !st.appliesTo(loop) {
			continue
		}
		switch d := st.Default.(type) {
		case bool:
			*st.out(s).(*bool) = d
		case int:
			*st.out(s).(*int) = d
		case string:
			*st.out(s).(*string) = d
		default:
			panic(fmt.Sprintf("config: setting %s has a default of type %T", st.Name, d))
		}
	}
}

// layer puts every setting v gives over s (only the decide.Config knobs
// when knobs is set); lists are copied, so s shares no memory with v.
func (s *Settings) layer(v *Values, knobs bool) {
	for _, st := range settings {
		if st.out == nil || knobs && !st.Knob {
			continue
		}
		switch src := st.field(v).(type) {
		case **int:
			setIf(st.out(s).(*int), *src)
		case **bool:
			setIf(st.out(s).(*bool), *src)
		case **string:
			setIf(st.out(s).(*string), *src)
		case **float64:
			switch dst := st.out(s).(type) {
			case *float64:
				setIf(dst, *src)
			case **float64:
				if *src != nil {
					x := **src
					*dst = &x
				}
			}
		case *[]string:
			dst := st.out(s).(*[]string)
			*dst = listIf(*dst, *src)
		}
	}
}

// layerTarget returns c's target, else the target layers gives c's layer
// (L1 when c has none), else nil.
func layerTarget(c decide.Config, layers map[string]float64) *float64 {
	if c.Target != nil || layers == nil {
		return c.Target
	}
	layer := normLayer(c.Layer)
	if layer == "" {
		layer = "L1"
	}
	if v, ok := layers[layer]; ok {
		return &v
	}
	return nil
}

// check checks the inputs that decide.Config.Validate does not cover, and
// returns them with the layer and the dispatch in their canonical forms.
// Each error names the input.
func (o Overrides) check(loop decide.Loop) (Overrides, error) {
	bad := func(input, msg string) error { return fmt.Errorf("invalid input %s: %s", input, msg) }
	for _, st := range settings {
		if st.Knob {
			continue
		}
		if msg := st.checkInput(&o); msg != "" {
			return Overrides{}, bad(st.Name, msg)
		}
	}
	if o.Commit != nil && *o.Commit && loop != decide.Coverage {
		return Overrides{}, bad("commit", fmt.Sprintf("test-only commits are made by coverage loops only, not %s", loop))
	}
	return o, nil
}

// checkInput checks the setting's value in o, if given, against the
// setting's limits, and puts a string in its canonical form; "" when fine.
// A string given empty is left empty: for the dispatch, that turns it off.
func (st *Setting) checkInput(o *Overrides) string {
	switch v := st.field(o).(type) {
	case **int:
		if *v != nil && (float64(**v) < st.Min || float64(**v) > st.Max) {
			return fmt.Sprintf("want an integer from %g to %g, got %d", st.Min, st.Max, **v)
		}
	case **string:
		switch {
		case *v == nil:
		case st.Enum != nil:
			return checkEnum(**v, st.Enum)
		case st.Norm != nil && **v != "":
			norm, msg := st.Norm(**v)
			if msg != "" {
				return msg
			}
			*v = &norm
		}
	case *[]string:
		if len(*v) > st.Items {
			return fmt.Sprintf("%d items, at most %d allowed", len(*v), st.Items)
		}
		for _, it := range *v {
			if msg := st.Check(it); msg != "" {
				return msg
			}
		}
	}
	return ""
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
