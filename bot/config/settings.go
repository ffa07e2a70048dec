package config

import (
	"fmt"
	"slices"

	"github.com/gcloop/gcloop/decide"
)

// A Setting declares one loop setting: every name it goes by, its type (the
// type of its field in Values), its limits and its help. The table below is
// the only declaration of the settings: the file parser, the action's
// inputs, gcloop decide's flags, `gcloop run --help` and Resolve all read
// it.
type Setting struct {
	// Name is the setting's action input and flag, and the name errors
	// about an input give: max-rounds.
	Name string
	// Key is its key in a section of the file, written group.key under a
	// group (commands.permission); "" when the file has no key for it.
	Key string
	// Kinds are the loop kinds it applies to; nil: every kind.
	Kinds []decide.Loop
	// Input says the action has an input Name; Doc is that input's
	// description in action.yml (whose default is empty: not given).
	Input bool
	Doc   string
	// Flag is the help of gcloop decide's --Name; "" when decide has no
	// such flag.
	Flag string
	// Knob says the value is a decide.Config knob: its default is
	// decide.Defaults', and decide.Config.Validate checks it once
	// resolved, so an input of it is not checked before.
	Knob bool
	// Default is the value of a setting that is no knob when no source
	// gives one, for the loops of its Kinds (a bool, an int or a string,
	// as the setting's type); nil: the zero value.
	Default any
	// Min and Max bound an integer or a number.
	Min, Max float64
	// Enum lists the values of a string that is a choice.
	Enum []string
	// Items caps a list, and Check checks each item (a message, "" when
	// fine).
	Items int
	Check func(string) string
	// Norm turns a string into its canonical form, or says why it has
	// none.
	Norm func(string) (string, string)

	// field is the setting's field in Values.
	field func(*Values) any
	// out is where Resolve puts its value; nil when Resolve derives it
	// otherwise (layers gives the target).
	out func(*Settings) any
}

// Field returns a pointer to the setting's field in v: a **int, **float64,
// **bool, **string, *[]string or *map[string]float64.
func (s *Setting) Field(v *Values) any { return s.field(v) }

var settings = []*Setting{
	{Name: "max-rounds", Key: "max_rounds", Input: true, Knob: true, Min: 1, Max: 100,
		Doc:   "Critic evaluations allowed; at round >= max-rounds no fix round starts. Empty: configuration, else the loop's default (review 3, critique 2, audit 3, validation 3, coverage 3).",
		Flag:  "round cap (default: per loop)",
		field: func(v *Values) any { return &v.MaxRounds }, out: func(s *Settings) any { return &s.Config.MaxRounds }},
	{Name: "threshold", Key: "threshold", Kinds: []decide.Loop{decide.Review}, Input: true, Knob: true, Min: 1, Max: 10,
		Doc:   "Review only: score (1–10) at or above which a review converges. Empty: configuration, else 7.",
		Flag:  "review score threshold (default 7)",
		field: func(v *Values) any { return &v.Threshold }, out: func(s *Settings) any { return &s.Config.Threshold }},
	{Name: "target", Key: "target", Kinds: []decide.Loop{decide.Coverage}, Input: true, Knob: true, Min: 0, Max: 100,
		Doc:   "Coverage only: target line coverage percent (0–100) for every layer. Empty: configuration, else the layer's default.",
		Flag:  "coverage target in percent (default: per layer)",
		field: func(v *Values) any { return &v.Target }, out: func(s *Settings) any { return &s.Config.Target }},
	{Name: "layer", Input: true, Norm: checkLayer,
		Doc:   "Coverage only: test layer L1, L2 or L3 (default targets 80, 60 and 40 percent, configurable per layer). Empty: no layer; the L1 target applies.",
		Flag:  "coverage layer: L1, L2 or L3",
		field: func(v *Values) any { return &v.Layer }, out: func(s *Settings) any { return &s.Config.Layer }},
	{Name: "layers", Key: "layers", Kinds: []decide.Loop{decide.Coverage}, Min: 0, Max: 100,
		field: func(v *Values) any { return &v.Layers }},
	{Name: "stall", Key: "stall", Input: true, Knob: true, Min: 0, Max: 100,
		Doc:   "Stuck rounds in a row that stop the loop early; 0 disables. Empty: configuration, else 2.",
		Flag:  "stuck rounds in a row that stop the loop (default 2; 0 disables)",
		field: func(v *Values) any { return &v.Stall }, out: func(s *Settings) any { return &s.Config.Stall }},
	{Name: "audit-partial", Key: "audit.partial", Kinds: []decide.Loop{decide.Audit}, Knob: true, Enum: auditPartials,
		field: func(v *Values) any { return &v.AuditPartial }, out: func(s *Settings) any { return &s.Config.AuditPartial }},
	{Name: "without-data", Key: "without_data", Kinds: []decide.Loop{decide.Critique}, Enum: withoutDataChecks,
		field: func(v *Values) any { return &v.WithoutData }, out: func(s *Settings) any { return &s.WithoutData }},
	{Name: "issues", Key: "issues", Input: true, Default: true,
		Doc:   "Open one fix issue per task on fix, revision and retry verdicts, and close them when the loop converges: true or false. Empty: configuration, else true.",
		field: func(v *Values) any { return &v.Issues }, out: func(s *Settings) any { return &s.Issues }},
	{Name: "labels", Key: "labels", Input: true, Items: maxLabels, Check: checkLabel,
		Doc:   "Extra labels for fix issues, beside gcloop and gcloop:<loop>; newline- or comma-separated. Empty: configuration, else none.",
		field: func(v *Values) any { return &v.Labels }, out: func(s *Settings) any { return &s.Labels }},
	{Name: "commit", Key: "commit", Kinds: []decide.Loop{decide.Coverage}, Input: true, Default: true,
		Doc:   "Coverage only: push the round's accepted test-only changes from the workspace as one commit on the pull request head: true or false. Empty: configuration, else true for the coverage loop (other loops never commit).",
		field: func(v *Values) any { return &v.Commit }, out: func(s *Settings) any { return &s.Commit }},
	{Name: "test-patterns", Key: "test_patterns", Kinds: []decide.Loop{decide.Coverage}, Input: true, Items: maxListItems, Check: checkPattern,
		Doc:   `Coverage only: globs of the files a round may change (newline- or comma-separated; "**" spans directories). Empty: configuration, else the built-in per-language list.`,
		field: func(v *Values) any { return &v.TestPatterns }, out: func(s *Settings) any { return &s.TestPatterns }},
	{Name: "forbidden-markers", Key: "forbidden_markers", Kinds: []decide.Loop{decide.Coverage}, Items: maxListItems, Check: checkMarker,
		field: func(v *Values) any { return &v.ForbiddenMarkers }, out: func(s *Settings) any { return &s.ForbiddenMarkers }},
	{Name: "dispatch", Key: "dispatch", Input: true, Norm: normDispatch,
		Doc:   "Workflow file (for example coverage.yml) to start with workflow_dispatch on the pull request head for the next round, after a fix commit or an authorized `/gc retry`. Empty: configuration, else none.",
		field: func(v *Values) any { return &v.Dispatch }, out: func(s *Settings) any { return &s.Dispatch }},
	{Name: "max-issues", Key: "max_issues", Input: true, Min: 1, Max: MaxIssuesCap,
		Doc:   "At most this many fix issues per round (1-100), the most severe tasks first; the rest are listed in the report. Empty: the configuration file's max_issues, else 10.",
		field: func(v *Values) any { return &v.MaxIssues }, out: func(s *Settings) any { return &s.MaxIssues }},
	{Name: "permission", Key: "commands.permission", Enum: permissions, Default: DefaultPermission,
		field: func(v *Values) any { return &v.Permission }, out: func(s *Settings) any { return &s.Permission }},
	{Name: "max-retries", Key: "commands.max_retries", Min: 0, Max: maxRetriesCap, Default: DefaultMaxRetries,
		field: func(v *Values) any { return &v.MaxRetries }, out: func(s *Settings) any { return &s.MaxRetries }},
	{Name: "bot-artifacts", Key: "bot.artifacts", Items: maxListItems, Check: checkArtifact,
		field: func(v *Values) any { return &v.BotArtifacts }, out: func(s *Settings) any { return &s.BotArtifacts }},
}

// All returns the declared loop settings, the action's inputs among them
// in action.yml's order. The caller must not change them.
func All() []*Setting { return settings }

// Lookup returns the setting named name (max-rounds), or nil.
func Lookup(name string) *Setting {
	for _, s := range settings {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// appliesTo says whether the setting applies to loop kind l.
func (s *Setting) appliesTo(l decide.Loop) bool {
	return s.Kinds == nil || slices.Contains(s.Kinds, l)
}

// checkLayer is the layer's Norm: L1, L2 or L3 in any case.
func checkLayer(s string) (string, string) {
	if l := normLayer(s); l != "" {
		return l, ""
	}
	return "", fmt.Sprintf("want L1, L2 or L3, got %q", clip(s))
}
