package config

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

func mustParse(t *testing.T, in string) *File {
	t.Helper()
	f, err := Parse("gcloop.yml", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		section *Section
		start   decide.Config
		want    decide.Config
	}{
		{"a nil section changes nothing", nil,
			decide.Defaults(decide.Review), decide.Defaults(decide.Review)},
		{"an empty section changes nothing", &Section{},
			decide.Defaults(decide.Audit), decide.Defaults(decide.Audit)},
		{"every knob is layered",
			&Section{Values: Values{MaxRounds: ptr(5), Threshold: ptr(8.5), Target: ptr(90.0), Stall: ptr(0), AuditPartial: ptr("revise")}},
			decide.Defaults(decide.Review),
			decide.Config{MaxRounds: 5, Threshold: 8.5, Target: ptr(90.0), Stall: 0, AuditPartial: "revise"}},
		{"the layer's target is taken when no target is set",
			&Section{Values: Values{Layers: map[string]float64{"L1": 85, "L2": 65}}},
			decide.Config{MaxRounds: 3, Threshold: 7, Layer: "l2", Stall: 2, AuditPartial: "converge"},
			decide.Config{MaxRounds: 3, Threshold: 7, Target: ptr(65.0), Layer: "l2", Stall: 2, AuditPartial: "converge"}},
		{"no layer takes the L1 target",
			&Section{Values: Values{Layers: map[string]float64{"L1": 85}}},
			decide.Defaults(decide.Coverage),
			decide.Config{MaxRounds: 3, Threshold: 7, Target: ptr(85.0), Stall: 2, AuditPartial: "converge"}},
		{"a layer the section does not set keeps the default",
			&Section{Values: Values{Layers: map[string]float64{"L1": 85}}},
			decide.Config{MaxRounds: 3, Threshold: 7, Layer: "L3", Stall: 2, AuditPartial: "converge"},
			decide.Config{MaxRounds: 3, Threshold: 7, Layer: "L3", Stall: 2, AuditPartial: "converge"}},
		{"a target already set wins over layers",
			&Section{Values: Values{Layers: map[string]float64{"L1": 85}}},
			decide.Config{MaxRounds: 3, Threshold: 7, Target: ptr(50.0), Stall: 2, AuditPartial: "converge"},
			decide.Config{MaxRounds: 3, Threshold: 7, Target: ptr(50.0), Stall: 2, AuditPartial: "converge"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.start
			tt.section.Apply(&got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyDoesNotAliasTheSection(t *testing.T) {
	t.Parallel()
	s := &Section{Values: Values{Target: ptr(70.0)}}
	var c decide.Config
	s.Apply(&c)
	*c.Target = 10
	if *s.Target != 70 {
		t.Errorf("section target changed to %g through the config", *s.Target)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	reviewDefaults := Settings{Config: decide.Defaults(decide.Review), Issues: true, Permission: "write", MaxRetries: 2}
	coverageDefaults := Settings{Config: decide.Defaults(decide.Coverage), Issues: true, Commit: true, Permission: "write", MaxRetries: 2}
	with := func(s Settings, f func(*Settings)) Settings {
		f(&s)
		return s
	}
	const file = `
review:
  max_rounds: 5
  threshold: 8
  stall: 3
  issues: false
  labels: [from-file]
  dispatch: .github/workflows/review.yml
  commands: {permission: admin, max_retries: 4}
coverage:
  layers: {L1: 90, L2: 70}
  commit: false
  test_patterns: ["*_test.go"]
  forbidden_markers: [t.Skip]
cov-web:
  loop: coverage
  target: 55
audit:
  audit: {partial: revise}
critique:
`
	tests := []struct {
		name   string
		loop   decide.Loop
		id     string
		file   string
		inputs Overrides
		want   Settings
	}{
		{"no file gives the defaults", decide.Review, "", "", Overrides{}, reviewDefaults},
		{"no section gives the defaults", decide.Validation, "", file, Overrides{},
			Settings{Config: decide.Defaults(decide.Validation), Issues: true, Permission: "write", MaxRetries: 2}},
		{"critique's defaults have two rounds", decide.Critique, "", file, Overrides{},
			Settings{Config: decide.Config{MaxRounds: 2, Threshold: 7, Stall: 2, AuditPartial: "converge"}, Issues: true, Permission: "write", MaxRetries: 2}},
		{"coverage commits by default", decide.Coverage, "", "", Overrides{}, coverageDefaults},
		{"the file wins over the defaults", decide.Review, "review", file, Overrides{},
			with(reviewDefaults, func(s *Settings) {
				s.Config.MaxRounds, s.Config.Threshold, s.Config.Stall = 5, 8, 3
				s.Issues, s.Labels, s.Dispatch = false, []string{"from-file"}, "review.yml"
				s.Permission, s.MaxRetries = "admin", 4
			})},
		{"inputs win over the file", decide.Review, "", file, Overrides{
			MaxRounds: ptr(2), Threshold: ptr(6.5), Stall: ptr(0), Issues: ptr(true), Labels: []string{"from-input"},
			Dispatch: ptr("next.yaml"), Permission: ptr("maintain"), MaxRetries: ptr(0),
		}, with(reviewDefaults, func(s *Settings) {
			s.Config.MaxRounds, s.Config.Threshold, s.Config.Stall = 2, 6.5, 0
			s.Labels, s.Dispatch = []string{"from-input"}, "next.yaml"
			s.Permission, s.MaxRetries = "maintain", 0
		})},
		{"inputs win over the defaults without a file", decide.Review, "", "", Overrides{MaxRounds: ptr(7)},
			with(reviewDefaults, func(s *Settings) { s.Config.MaxRounds = 7 })},
		{"an input fills only what it sets", decide.Review, "", file, Overrides{Stall: ptr(1)},
			with(reviewDefaults, func(s *Settings) {
				s.Config.MaxRounds, s.Config.Threshold, s.Config.Stall = 5, 8, 1
				s.Issues, s.Labels, s.Dispatch = false, []string{"from-file"}, "review.yml"
				s.Permission, s.MaxRetries = "admin", 4
			})},
		{"an empty input list clears the file's list", decide.Review, "", file, Overrides{Labels: []string{}},
			with(reviewDefaults, func(s *Settings) {
				s.Config.MaxRounds, s.Config.Threshold, s.Config.Stall = 5, 8, 3
				s.Issues, s.Labels, s.Dispatch = false, []string{}, "review.yml"
				s.Permission, s.MaxRetries = "admin", 4
			})},
		{"an empty dispatch input turns the file's dispatch off", decide.Review, "", file, Overrides{Dispatch: ptr("")},
			with(reviewDefaults, func(s *Settings) {
				s.Config.MaxRounds, s.Config.Threshold, s.Config.Stall = 5, 8, 3
				s.Issues, s.Labels = false, []string{"from-file"}
				s.Permission, s.MaxRetries = "admin", 4
			})},
		{"a dispatch input path is read as its file name", decide.Validation, "", "", Overrides{Dispatch: ptr(".github/workflows/v.yml")},
			Settings{Config: decide.Defaults(decide.Validation), Issues: true, Dispatch: "v.yml", Permission: "write", MaxRetries: 2}},
		{"the file's layer target applies to the input layer", decide.Coverage, "", file, Overrides{Layer: ptr("l2")},
			with(coverageDefaults, func(s *Settings) {
				s.Config.Target, s.Config.Layer = ptr(70.0), "L2"
				s.Commit, s.TestPatterns, s.ForbiddenMarkers = false, []string{"*_test.go"}, []string{"t.Skip"}
			})},
		{"the file's L1 target applies without a layer", decide.Coverage, "", file, Overrides{},
			with(coverageDefaults, func(s *Settings) {
				s.Config.Target = ptr(90.0)
				s.Commit, s.TestPatterns, s.ForbiddenMarkers = false, []string{"*_test.go"}, []string{"t.Skip"}
			})},
		{"a layer the file does not set keeps the built-in target", decide.Coverage, "", file, Overrides{Layer: ptr("L3")},
			with(coverageDefaults, func(s *Settings) {
				s.Config.Layer = "L3"
				s.Commit, s.TestPatterns, s.ForbiddenMarkers = false, []string{"*_test.go"}, []string{"t.Skip"}
			})},
		{"a target input wins over the file's layers", decide.Coverage, "", file, Overrides{Target: ptr(33.0), Layer: ptr("L1")},
			with(coverageDefaults, func(s *Settings) {
				s.Config.Target, s.Config.Layer = ptr(33.0), "L1"
				s.Commit, s.TestPatterns, s.ForbiddenMarkers = false, []string{"*_test.go"}, []string{"t.Skip"}
			})},
		{"a target input wins over the file's target", decide.Coverage, "cov-web", file, Overrides{Target: ptr(20.0)},
			with(coverageDefaults, func(s *Settings) { s.Config.Target = ptr(20.0) })},
		{"a named section is found by its id", decide.Coverage, "cov-web", file, Overrides{},
			with(coverageDefaults, func(s *Settings) { s.Config.Target = ptr(55.0) })},
		{"a commit input wins over the file", decide.Coverage, "", file, Overrides{Commit: ptr(true), TestPatterns: []string{"tests/**"}, ForbiddenMarkers: []string{}},
			with(coverageDefaults, func(s *Settings) {
				s.Config.Target = ptr(90.0)
				s.TestPatterns, s.ForbiddenMarkers = []string{"tests/**"}, []string{}
			})},
		{"a commit input false turns coverage commits off", decide.Coverage, "", "", Overrides{Commit: ptr(false)},
			with(coverageDefaults, func(s *Settings) { s.Commit = false })},
		{"a commit input false is fine for other loops", decide.Review, "", "", Overrides{Commit: ptr(false)}, reviewDefaults},
		{"audit.partial comes from the file", decide.Audit, "", file, Overrides{},
			Settings{Config: decide.Config{MaxRounds: 3, Threshold: 7, Stall: 2, AuditPartial: "revise"}, Issues: true, Permission: "write", MaxRetries: 2}},
		{"an audit.partial input wins over the file", decide.Audit, "", file, Overrides{AuditPartial: ptr("converge")},
			Settings{Config: decide.Defaults(decide.Audit), Issues: true, Permission: "write", MaxRetries: 2}},
		{"an empty section gives the defaults", decide.Critique, "critique", file, Overrides{},
			Settings{Config: decide.Defaults(decide.Critique), Issues: true, Permission: "write", MaxRetries: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var f *File
			if tt.file != "" {
				f = mustParse(t, tt.file)
			}
			got, err := Resolve(tt.loop, tt.id, f, tt.inputs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveDoesNotAliasItsSources(t *testing.T) {
	t.Parallel()
	f := mustParse(t, "review:\n  labels: [a]\n")
	in := Overrides{Target: ptr(50.0)}
	s, err := Resolve(decide.Review, "", f, in)
	if err != nil {
		t.Fatal(err)
	}
	s.Labels[0] = "changed"
	*s.Config.Target = 1
	if f.Loops["review"].Labels[0] != "a" || *in.Target != 50 {
		t.Errorf("Resolve returned settings that share memory with the file or the inputs")
	}
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	const file = "cov:\n  loop: coverage\nreview:\n"
	tests := []struct {
		name       string
		loop       decide.Loop
		id         string
		inputs     Overrides
		want       string
		isParseErr bool
	}{
		{"a section of another kind is refused", decide.Review, "cov", Overrides{},
			"gcloop.yml:1: section cov is a coverage loop, but this run is a review loop", true},
		{"an unknown loop is refused", decide.Loop("lint"), "", Overrides{},
			`resolve settings: unknown loop "lint"`, false},
		{"a loop in capitals is refused", decide.Loop("Review"), "", Overrides{},
			`resolve settings: unknown loop "Review"`, false},
		{"a commit input for review is refused", decide.Review, "", Overrides{Commit: ptr(true)},
			"invalid input commit: test-only commits are made by coverage loops only, not review", false},
		{"max_rounds out of range is refused", decide.Review, "", Overrides{MaxRounds: ptr(0)},
			"invalid input: max-rounds 0 out of range 1–100", false},
		{"a threshold out of range is refused", decide.Review, "", Overrides{Threshold: ptr(11.0)},
			"invalid input: threshold 11 out of range 1–10", false},
		{"a target out of range is refused", decide.Coverage, "", Overrides{Target: ptr(-1.0)},
			"invalid input: target -1 out of range 0–100", false},
		{"a stall out of range is refused", decide.Coverage, "", Overrides{Stall: ptr(-1)},
			"invalid input: stall -1 out of range 0–100", false},
		{"an unknown audit.partial is refused", decide.Audit, "", Overrides{AuditPartial: ptr("maybe")},
			`invalid input: audit.partial "maybe": want converge or revise`, false},
		{"an unknown layer is refused", decide.Coverage, "", Overrides{Layer: ptr("L9")},
			`invalid input layer: want L1, L2 or L3, got "L9"`, false},
		{"a bad dispatch is refused", decide.Review, "", Overrides{Dispatch: ptr("deploy")},
			`invalid input dispatch: workflow file "deploy": want a name ending in .yml or .yaml`, false},
		{"an unknown permission is refused", decide.Review, "", Overrides{Permission: ptr("read")},
			`invalid input permission: want write, maintain or admin, got "read"`, false},
		{"max_retries out of range is refused", decide.Review, "", Overrides{MaxRetries: ptr(21)},
			"invalid input max-retries: want an integer from 0 to 20, got 21", false},
		{"a bad label is refused", decide.Review, "", Overrides{Labels: []string{"ok", ""}},
			"invalid input labels: empty label", false},
		{"a bad pattern is refused", decide.Coverage, "", Overrides{TestPatterns: []string{"a/[b"}},
			`invalid input test-patterns: malformed pattern "a/[b" (segment "[b")`, false},
		{"too many markers are refused", decide.Coverage, "", Overrides{ForbiddenMarkers: make([]string, 201)},
			"invalid input forbidden-markers: 201 items, at most 200 allowed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := mustParse(t, file)
			_, err := Resolve(tt.loop, tt.id, f, tt.inputs)
			if err == nil {
				t.Fatalf("Resolve succeeded, want error %q", tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			var pe *parse.Error
			if errors.As(err, &pe) != tt.isParseErr {
				t.Errorf("error is a ParseError: %v, want %v", !tt.isParseErr, tt.isParseErr)
			}
		})
	}
}

func TestResolveExampleFile(t *testing.T) {
	t.Parallel()
	fh, err := os.Open("testdata/gcloop.yml")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := Parse("gcloop.yml", fh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(decide.Coverage, "coverage", f, Overrides{Layer: ptr("L3")})
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Config:           decide.Config{MaxRounds: 5, Threshold: 7, Target: ptr(45.5), Layer: "L3", Stall: 2, AuditPartial: "converge"},
		Issues:           true,
		Commit:           true,
		TestPatterns:     []string{"*_test.go", "testdata/**", "src/**/*.spec.ts"},
		ForbiddenMarkers: []string{"t.Skip", "it.skip", "@Disabled", "#[ignore]"},
		Dispatch:         "coverage.yml",
		Permission:       "write",
		MaxRetries:       2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestNormalizeDispatch(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want, err string }{
		{"a bare name is kept", "review.yml", "review.yml", ""},
		{"a workflow path is cut to the name", ".github/workflows/gc.yaml", "gc.yaml", ""},
		{"a nested workflow path is refused", ".github/workflows/sub/gc.yml", "",
			`dispatch: want a workflow file name like review.yml (or .github/workflows/review.yml), got ".github/workflows/sub/gc.yml"`},
		{"a backslash is refused", `a\b.yml`, "",
			`dispatch: want a workflow file name like review.yml (or .github/workflows/review.yml), got "a\\b.yml"`},
		{"a workflow id is refused", "12345", "", `dispatch: workflow file "12345": want a name ending in .yml or .yaml`},
		{"a non-ASCII name is refused", "révue.yml", "", `dispatch: workflow file "révue.yml": want letters, digits, '.', '_' or '-'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := NormalizeDispatch(tt.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if got != tt.want || gotErr != tt.err {
				t.Errorf("NormalizeDispatch(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
			}
		})
	}
}
