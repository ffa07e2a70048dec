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

func ptr[T any](v T) *T { return &v }

func TestParseExampleFile(t *testing.T) {
	t.Parallel()
	fh, err := os.Open("testdata/gcloop.yml")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	got, err := Parse("gcloop.yml", fh)
	if err != nil {
		t.Fatal(err)
	}
	want := &File{Name: "gcloop.yml", Loops: map[string]*Section{
		"review": {
			ID: "review", Loop: decide.Review, Line: 6, Values: Values{
				MaxRounds: ptr(4), Threshold: ptr(8.0), Stall: ptr(2), Issues: ptr(true),
				Labels: []string{"needs-fix", "priority: high"}, Dispatch: ptr("review.yml"),
				Permission: ptr("maintain"), MaxRetries: ptr(3),
			},
		},
		"critique": {ID: "critique", Loop: decide.Critique, Line: 18},
		"design-audit": {
			ID: "design-audit", Loop: decide.Audit, Line: 21,
			Values: Values{MaxRounds: ptr(3), AuditPartial: ptr("revise")},
		},
		"validation": {
			ID: "validation", Loop: decide.Validation, Line: 27,
			Values: Values{MaxRounds: ptr(3), Issues: ptr(false), Dispatch: ptr("validate.yaml")},
		},
		"coverage": {
			ID: "coverage", Loop: decide.Coverage, Line: 32, Values: Values{
				MaxRounds: ptr(5), Layers: map[string]float64{"L1": 85, "L2": 70, "L3": 45.5},
				Commit:           ptr(true),
				TestPatterns:     []string{"*_test.go", "testdata/**", "src/**/*.spec.ts"},
				ForbiddenMarkers: []string{"t.Skip", "it.skip", "@Disabled", "#[ignore]"},
				Dispatch:         ptr("coverage.yml"),
			},
		},
		"coverage-web": {
			ID: "coverage-web", Loop: decide.Coverage, Line: 51,
			Values: Values{Target: ptr(70.0), Commit: ptr(false), Stall: ptr(0)},
		},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestParseEmptyFiles(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in string }{
		{"an empty file configures nothing", ""},
		{"a file of comments configures nothing", "# gcloop\n\n   # nothing yet\n"},
		{"a bare document marker configures nothing", "---\n"},
		{"an explicit null configures nothing", "~\n"},
		{"blank lines configure nothing", "\n\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse("gcloop.yml", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&File{Name: "gcloop.yml", Loops: map[string]*Section{}}, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseKeys reads one section per case and compares it with the
// expected section (ID, Loop and Line filled in by the test).
func TestParseKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		id   string
		in   string
		want Values
	}{
		{"a kind name alone is an empty section", "audit", "audit:\n", Values{}},
		{"an empty mapping is an empty section", "review", "review: {}\n", Values{}},
		{"loop names the kind of any id", "api", "api:\n  loop: review\n", Values{}},
		{"loop is read case-insensitively", "api", "api:\n  loop: Coverage\n", Values{}},
		{"loop may repeat the kind of a kind-named section", "audit", "audit:\n  loop: audit\n", Values{}},
		{"max_rounds takes its lowest value", "review", "review:\n  max_rounds: 1\n", Values{MaxRounds: ptr(1)}},
		{"max_rounds takes its highest value", "review", "review:\n  max_rounds: 100\n", Values{MaxRounds: ptr(100)}},
		{"threshold takes an integer", "review", "review:\n  threshold: 7\n", Values{Threshold: ptr(7.0)}},
		{"threshold takes a fraction", "review", "review:\n  threshold: 7.5\n", Values{Threshold: ptr(7.5)}},
		{"threshold takes its bounds", "review", "review:\n  threshold: 10\n", Values{Threshold: ptr(10.0)}},
		{"target takes zero", "coverage", "coverage:\n  target: 0\n", Values{Target: ptr(0.0)}},
		{"target takes a hundred", "coverage", "coverage:\n  target: 100.0\n", Values{Target: ptr(100.0)}},
		{"layers read L1 to L3 in any case", "coverage", "coverage:\n  layers: {l1: 90, L2: 65.5, l3: 0}\n",
			Values{Layers: map[string]float64{"L1": 90, "L2": 65.5, "L3": 0}}},
		{"layers may set one layer", "coverage", "coverage:\n  layers:\n    L3: 50\n", Values{Layers: map[string]float64{"L3": 50}}},
		{"layers may be empty", "coverage", "coverage:\n  layers: {}\n", Values{Layers: map[string]float64{}}},
		{"stall takes zero to disable", "critique", "critique:\n  stall: 0\n", Values{Stall: ptr(0)}},
		{"stall takes a hundred", "validation", "validation:\n  stall: 100\n", Values{Stall: ptr(100)}},
		{"audit.partial takes converge", "audit", "audit:\n  audit:\n    partial: converge\n", Values{AuditPartial: ptr("converge")}},
		{"audit.partial takes revise", "audit", "audit:\n  audit: {partial: revise}\n", Values{AuditPartial: ptr("revise")}},
		{"critique's without_data takes success", "critique", "critique:\n  without_data: success\n", Values{WithoutData: ptr("success")}},
		{"audit may be an empty mapping", "audit", "audit:\n  audit: {}\n", Values{}},
		{"issues takes false", "review", "review:\n  issues: false\n", Values{Issues: ptr(false)}},
		{"issues takes True", "validation", "validation:\n  issues: True\n", Values{Issues: ptr(true)}},
		{"labels take a block list", "review", "review:\n  labels:\n    - bug\n    - \"area: ci\"\n", Values{Labels: []string{"bug", "area: ci"}}},
		{"labels take numbers as written", "review", "review:\n  labels: [2024, 1.10, v2]\n", Values{Labels: []string{"2024", "1.10", "v2"}}},
		{"labels take dates as written", "review", "review:\n  labels: [2024-01-31]\n", Values{Labels: []string{"2024-01-31"}}},
		{"labels may be empty", "review", "review:\n  labels: []\n", Values{Labels: []string{}}},
		{"commit takes false", "coverage", "coverage:\n  commit: false\n", Values{Commit: ptr(false)}},
		{"test_patterns take globs", "coverage", "coverage:\n  test_patterns: [\"*_test.go\", \"/tests/**\", \"spec/[a-z]*.rb\"]\n",
			Values{TestPatterns: []string{"*_test.go", "/tests/**", "spec/[a-z]*.rb"}}},
		{"test_patterns may be empty", "coverage", "coverage:\n  test_patterns: []\n", Values{TestPatterns: []string{}}},
		{"forbidden_markers take any text", "coverage", "coverage:\n  forbidden_markers: [\"@pytest.mark.skip\", \"as any\", \"// eslint-disable\"]\n",
			Values{ForbiddenMarkers: []string{"@pytest.mark.skip", "as any", "// eslint-disable"}}},
		{"forbidden_markers may be empty", "coverage", "coverage:\n  forbidden_markers: []\n", Values{ForbiddenMarkers: []string{}}},
		{"dispatch takes a file name", "review", "review:\n  dispatch: gc-review.yml\n", Values{Dispatch: ptr("gc-review.yml")}},
		{"dispatch takes a .yaml name", "review", "review:\n  dispatch: next_round.v2.yaml\n", Values{Dispatch: ptr("next_round.v2.yaml")}},
		{"dispatch reads a workflow path as its file name", "review", "review:\n  dispatch: .github/workflows/review.yml\n", Values{Dispatch: ptr("review.yml")}},
		{"dispatch reads a ./ workflow path as its file name", "review", "review:\n  dispatch: ./.github/workflows/review.yml\n", Values{Dispatch: ptr("review.yml")}},
		{"commands.permission takes admin", "review", "review:\n  commands:\n    permission: admin\n", Values{Permission: ptr("admin")}},
		{"commands.permission takes write", "audit", "audit:\n  commands: {permission: write}\n", Values{Permission: ptr("write")}},
		{"commands.max_retries takes zero", "review", "review:\n  commands: {max_retries: 0}\n", Values{MaxRetries: ptr(0)}},
		{"commands.max_retries takes twenty", "review", "review:\n  commands: {max_retries: 20}\n", Values{MaxRetries: ptr(20)}},
		{"bot.artifacts names the artifacts", "review", "review:\n  bot:\n    artifacts: [review-results, sarif]\n", Values{BotArtifacts: []string{"review-results", "sarif"}}},
		{"max_rounds takes hexadecimal", "review", "review:\n  max_rounds: 0x10\n", Values{MaxRounds: ptr(16)}},
		{"threshold takes an exponent", "review", "review:\n  threshold: 1e1\n", Values{Threshold: ptr(10.0)}},
		{"an explicit bool tag is a bool", "review", "review:\n  issues: !!bool false\n", Values{Issues: ptr(false)}},
		{"a byte order mark is skipped", "review", "\ufeffreview:\n  stall: 1\n", Values{Stall: ptr(1)}},
		{"CRLF line ends are read", "review", "review:\r\n  stall: 1\r\n  issues: false\r\n", Values{Stall: ptr(1), Issues: ptr(false)}},
		{"comments and blank lines are ignored", "review", "# top\nreview:   # the review loop\n\n  # rounds\n  max_rounds: 2 # two\n", Values{MaxRounds: ptr(2)}},
		{"a quoted id is an id", "cov-api", "\"cov-api\":\n  loop: coverage\n", Values{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := Parse("gcloop.yml", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got := f.Section(tt.id)
			if got == nil {
				t.Fatalf("no section %q in %v", tt.id, f.Loops)
			}
			want := Section{Values: tt.want}
			want.ID, want.Line = tt.id, got.Line
			want.Loop, _ = decide.ParseLoop(tt.id)
			if i := strings.Index(tt.in, "loop: "); i >= 0 {
				want.Loop, _ = decide.ParseLoop(strings.Fields(tt.in[i+len("loop: "):])[0])
			}
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if got.Line < 1 {
				t.Errorf("Line = %d, want the line of the id", got.Line)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		// Structure.
		{"a list at the top is refused", "- review\n", "gcloop.yml:1: want a mapping of loop ids to sections, got a list"},
		{"a scalar at the top is refused", "review\n", `gcloop.yml:1: want a mapping of loop ids to sections, got "review"`},
		{"a section that is a scalar is refused", "review: 3\n", "gcloop.yml:1: section review: want a mapping of settings, got 3"},
		{"a section that is a list is refused", "review:\n  - max_rounds: 3\n", "gcloop.yml:2: section review: want a mapping of settings, got a list"},
		{"an id that is no kind needs loop", "api:\n  max_rounds: 3\n", "gcloop.yml:1: section api: no loop kind: add `loop:` (review, critique, audit, validation or coverage)"},
		{"an empty section of an id that is no kind needs loop", "api:\n", "gcloop.yml:1: section api: no loop kind: add `loop:` (review, critique, audit, validation or coverage)"},
		{"an unknown loop kind is refused", "api:\n  loop: lint\n", `gcloop.yml:2: api.loop: unknown loop "lint" (want review, critique, audit, validation or coverage)`},
		{"a null loop kind is refused", "api:\n  loop:\n", "gcloop.yml:2: api.loop: want a string, got null"},
		{"a kind-named section of another kind is refused", "review:\n  loop: coverage\n", "gcloop.yml:2: review.loop: a section named review must be a review loop, not coverage; give it another id"},
		{"an id with spaces is refused", "my loop:\n  loop: review\n", `gcloop.yml:1: loop id "my loop": want [a-z0-9][a-z0-9_-]{0,31}: a lowercase letter or digit, then up to 31 lowercase letters, digits, '_' or '-'`},
		{"the id .. is refused", "'..':\n  loop: review\n", "gcloop.yml:1: loop id \"..\": " + decide.IDRule},
		{"the id . is refused", "'.':\n  loop: review\n", "gcloop.yml:1: loop id \".\": " + decide.IDRule},
		{"an id with capitals is refused", "Review:\n  loop: review\n", "gcloop.yml:1: loop id \"Review\": " + decide.IDRule},
		{"an id of 33 characters is refused", strings.Repeat("a", 33) + ":\n  loop: review\n", "gcloop.yml:1: loop id \"" + strings.Repeat("a", 33) + "\": " + decide.IDRule},
		{"an id starting with a dash is refused", "-x:\n  loop: review\n", `gcloop.yml:1: loop id "-x": want [a-z0-9][a-z0-9_-]{0,31}: a lowercase letter or digit, then up to 31 lowercase letters, digits, '_' or '-'`},
		{"a null id is refused", "~:\n  loop: review\n", "gcloop.yml:1: want a loop id, got null"},
		{"a mapping as id is refused", "? {a: 1}\n: {loop: review}\n", "gcloop.yml:1: want a loop id, got a mapping"},
		{"a duplicate id is refused", "review:\nreview:\n", `gcloop.yml:2: duplicate loop id "review" (first at line 1)`},
		{"a duplicate key is refused", "review:\n  max_rounds: 3\n  max_rounds: 4\n", `gcloop.yml:3: duplicate key "max_rounds" in review (first at line 2)`},
		{"a duplicate nested key is refused", "review:\n  commands:\n    permission: write\n    permission: admin\n", `gcloop.yml:4: duplicate key "permission" in review.commands (first at line 3)`},
		{"an artifact name with a slash is refused", "review:\n  bot: {artifacts: [a/b]}\n", `gcloop.yml:2: review.bot.artifacts[0]: artifact name "a/b" holds one of " : < > | * ? \ /`},
		{"bot wants a mapping", "review:\n  bot: [x]\n", "gcloop.yml:2: review.bot: want a mapping with artifacts, got a list"},
		{"an unknown key in bot", "review:\n  bot: {artifact: [x]}\n", `gcloop.yml:2: unknown key "artifact" in review.bot (did you mean "artifacts"?)`},
		// Unknown keys.
		{"an unknown key suggests the nearest", "review:\n  max_round: 3\n", `gcloop.yml:2: unknown key "max_round" in review (did you mean "max_rounds"?)`},
		{"an unknown hyphenated key suggests the underscore", "coverage:\n  test-patterns: []\n", `gcloop.yml:2: unknown key "test-patterns" in coverage (did you mean "test_patterns"?)`},
		{"an unknown key in another case suggests the key", "review:\n  Threshold: 7\n", `gcloop.yml:2: unknown key "Threshold" in review (did you mean "threshold"?)`},
		{"an unknown key far from all gives no suggestion", "review:\n  colour: blue\n", `gcloop.yml:2: unknown key "colour" in review`},
		{"a typo of another kind's key is not suggested", "review:\n  targt: 3\n", `gcloop.yml:2: unknown key "targt" in review`},
		{"an unknown key under audit suggests partial", "audit:\n  audit:\n    parital: revise\n", `gcloop.yml:3: unknown key "parital" in audit.audit (did you mean "partial"?)`},
		{"an unknown key under commands suggests the nearest", "review:\n  commands: {permision: write}\n", `gcloop.yml:2: unknown key "permision" in review.commands (did you mean "permission"?)`},
		{"a merge key is an unknown key", "review:\n  <<: {max_rounds: 3}\n", `gcloop.yml:2: unknown key "<<" in review`},
		{"a list as key is refused", "review:\n  ? [a]\n  : 1\n", "gcloop.yml:2: unknown key a list in review"},
		// Keys of another kind.
		{"threshold is a review key", "coverage:\n  threshold: 7\n", `gcloop.yml:2: key "threshold" in coverage applies only to review loops`},
		{"target is a coverage key", "review:\n  target: 80\n", `gcloop.yml:2: key "target" in review applies only to coverage loops`},
		{"layers is a coverage key", "validation:\n  layers: {L1: 80}\n", `gcloop.yml:2: key "layers" in validation applies only to coverage loops`},
		{"commit is a coverage key", "review:\n  commit: false\n", `gcloop.yml:2: key "commit" in review applies only to coverage loops`},
		{"test_patterns is a coverage key", "audit:\n  test_patterns: []\n", `gcloop.yml:2: key "test_patterns" in audit applies only to coverage loops`},
		{"forbidden_markers is a coverage key", "critique:\n  forbidden_markers: []\n", `gcloop.yml:2: key "forbidden_markers" in critique applies only to coverage loops`},
		{"audit is an audit key", "review:\n  audit: {partial: revise}\n", `gcloop.yml:2: key "audit" in review applies only to audit loops`},
		{"the kind of a named section shows", "api:\n  loop: coverage\n  threshold: 7\n", `gcloop.yml:3: key "threshold" in api (a coverage loop) applies only to review loops`},
		{"loop may come after the keys it governs", "api:\n  threshold: 7\n  loop: coverage\n", `gcloop.yml:2: key "threshold" in api (a coverage loop) applies only to review loops`},
		// max_rounds.
		{"max_rounds below 1 is refused", "review:\n  max_rounds: 0\n", "gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got 0"},
		{"max_rounds above 100 is refused", "review:\n  max_rounds: 101\n", "gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got 101"},
		{"max_rounds as a string is refused", "review:\n  max_rounds: \"3\"\n", `gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got "3"`},
		{"max_rounds tagged as a string is refused", "review:\n  max_rounds: !!str 3\n", `gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got "3"`},
		{"an error after CRLF lines names its line", "review:\r\n  max_rounds: 3\r\n  stall: x\r\n", `gcloop.yml:3: review.stall: want an integer from 0 to 100, got "x"`},
		{"max_rounds as a word is refused", "review:\n  max_rounds: three\n", `gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got "three"`},
		{"max_rounds as a fraction is refused", "review:\n  max_rounds: 2.5\n", "gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got 2.5"},
		{"max_rounds null is refused", "review:\n  max_rounds:\n", "gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got null"},
		{"max_rounds overflowing is refused", "review:\n  max_rounds: 99999999999999999999999\n", "gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got 99999999999999999999999"},
		{"max_rounds as a list is refused", "review:\n  max_rounds: [3]\n", "gcloop.yml:2: review.max_rounds: want an integer from 1 to 100, got a list"},
		// threshold and target.
		{"threshold below 1 is refused", "review:\n  threshold: 0.5\n", "gcloop.yml:2: review.threshold: want a number from 1 to 10, got 0.5"},
		{"threshold above 10 is refused", "review:\n  threshold: 11\n", "gcloop.yml:2: review.threshold: want a number from 1 to 10, got 11"},
		{"threshold NaN is refused", "review:\n  threshold: .nan\n", "gcloop.yml:2: review.threshold: want a number from 1 to 10, got .nan"},
		{"threshold as text is refused", "review:\n  threshold: high\n", `gcloop.yml:2: review.threshold: want a number from 1 to 10, got "high"`},
		{"target above 100 is refused", "coverage:\n  target: 100.5\n", "gcloop.yml:2: coverage.target: want a number from 0 to 100, got 100.5"},
		{"target negative is refused", "coverage:\n  target: -1\n", "gcloop.yml:2: coverage.target: want a number from 0 to 100, got -1"},
		{"target infinite is refused", "coverage:\n  target: .inf\n", "gcloop.yml:2: coverage.target: want a number from 0 to 100, got .inf"},
		{"target with a percent sign is refused", "coverage:\n  target: 80%\n", `gcloop.yml:2: coverage.target: want a number from 0 to 100, got "80%"`},
		{"target with layers is refused", "coverage:\n  target: 80\n  layers: {L2: 50}\n", "gcloop.yml:3: coverage: target and layers both set: use target for every layer or layers for each"},
		// layers.
		{"layers as a list is refused", "coverage:\n  layers: [80, 60]\n", "gcloop.yml:2: coverage.layers: want a mapping of L1, L2 or L3 to target percents, got a list"},
		{"an unknown layer is refused", "coverage:\n  layers:\n    L4: 30\n", `gcloop.yml:3: unknown layer "L4" in coverage.layers (want L1, L2 or L3)`},
		{"a layer given twice is refused", "coverage:\n  layers:\n    L1: 80\n    l1: 70\n", "gcloop.yml:4: duplicate layer L1 in coverage.layers (first at line 3)"},
		{"a layer target out of range is refused", "coverage:\n  layers:\n    L2: 160\n", "gcloop.yml:3: coverage.layers.L2: want a number from 0 to 100, got 160"},
		// stall.
		{"stall negative is refused", "review:\n  stall: -1\n", "gcloop.yml:2: review.stall: want an integer from 0 to 100, got -1"},
		{"stall above 100 is refused", "review:\n  stall: 101\n", "gcloop.yml:2: review.stall: want an integer from 0 to 100, got 101"},
		{"stall false is refused", "review:\n  stall: false\n", "gcloop.yml:2: review.stall: want an integer from 0 to 100, got false"},
		// audit.partial.
		{"audit as a scalar is refused", "audit:\n  audit: revise\n", `gcloop.yml:2: audit.audit: want a mapping with partial, got "revise"`},
		{"audit.partial unknown is refused", "audit:\n  audit: {partial: fix}\n", `gcloop.yml:2: audit.audit.partial: want converge or revise, got "fix"`},
		{"without_data unknown is refused", "critique:\n  without_data: green\n", `gcloop.yml:2: critique.without_data: want neutral or success, got "green"`},
		{"without_data is a critique key", "review:\n  without_data: success\n", `gcloop.yml:2: key "without_data" in review applies only to critique loops`},
		{"audit.partial is case-sensitive", "audit:\n  audit: {partial: Revise}\n", `gcloop.yml:2: audit.audit.partial: want converge or revise, got "Revise"`},
		{"audit.partial null is refused", "audit:\n  audit:\n    partial:\n", "gcloop.yml:3: audit.audit.partial: want a string, got null"},
		// issues and commit.
		{"issues yes is refused", "review:\n  issues: yes\n", `gcloop.yml:2: review.issues: want true or false, got "yes"`},
		{"issues as a number is refused", "review:\n  issues: 1\n", "gcloop.yml:2: review.issues: want true or false, got 1"},
		{"issues as a quoted word is refused", "review:\n  issues: \"true\"\n", `gcloop.yml:2: review.issues: want true or false, got "true"`},
		{"commit null is refused", "coverage:\n  commit: ~\n", "gcloop.yml:2: coverage.commit: want true or false, got null"},
		// labels, patterns, markers.
		{"labels as a scalar are refused", "review:\n  labels: bug\n", `gcloop.yml:2: review.labels: want a list of strings, got "bug"`},
		{"a null label is refused", "review:\n  labels: [a, ~]\n", "gcloop.yml:2: review.labels[1]: want a string, got null"},
		{"a label tagged binary is refused", "review:\n  labels: [!!binary aGk=]\n", `gcloop.yml:2: review.labels[0]: want a string, got "aGk=" tagged "!!binary"`},
		{"a label with a local tag is refused", "review:\n  labels: [!mine a]\n", `gcloop.yml:2: review.labels[0]: want a string, got "a" tagged "!mine"`},
		{"a nested list label is refused", "review:\n  labels:\n    - [a]\n", "gcloop.yml:3: review.labels[0]: want a string, got a list"},
		{"an empty label is refused", "review:\n  labels: [\"\"]\n", "gcloop.yml:2: review.labels[0]: empty label"},
		{"a long label is refused", "review:\n  labels: [" + strings.Repeat("x", 51) + "]\n", "gcloop.yml:2: review.labels[0]: label longer than 50 characters"},
		{"a label with a comma is refused", "review:\n  labels: [\"a,b\"]\n", `gcloop.yml:2: review.labels[0]: label "a,b" holds a comma`},
		{"a label with a newline is refused", "review:\n  labels: [\"a\\nb\"]\n", "gcloop.yml:2: review.labels[0]: label holds a control character"},
		{"a label with outer spaces is refused", "review:\n  labels: [\" a\"]\n", `gcloop.yml:2: review.labels[0]: label " a" has leading or trailing spaces`},
		{"too many labels are refused", "review:\n  labels: [" + strings.Repeat("a,", 100) + "a]\n", "gcloop.yml:2: review.labels: 101 items, at most 100 allowed"},
		{"a malformed pattern is refused", "coverage:\n  test_patterns: [\"tests/[a-\"]\n", `gcloop.yml:2: coverage.test_patterns[0]: malformed pattern "tests/[a-" (segment "[a-")`},
		{"a slash-only pattern is refused", "coverage:\n  test_patterns: [\"/\"]\n", `gcloop.yml:2: coverage.test_patterns[0]: pattern "/" matches nothing`},
		{"an empty pattern is refused", "coverage:\n  test_patterns:\n    - \"\"\n", "gcloop.yml:3: coverage.test_patterns[0]: empty pattern"},
		{"patterns as a mapping are refused", "coverage:\n  test_patterns: {go: \"*_test.go\"}\n", "gcloop.yml:2: coverage.test_patterns: want a list of strings, got a mapping"},
		{"a blank marker is refused", "coverage:\n  forbidden_markers: [\"  \"]\n", "gcloop.yml:2: coverage.forbidden_markers[0]: empty marker"},
		// dispatch.
		{"dispatch without extension is refused", "review:\n  dispatch: review\n", `gcloop.yml:2: review.dispatch: workflow file "review": want a name ending in .yml or .yaml`},
		{"dispatch in another directory is refused", "review:\n  dispatch: ci/review.yml\n", `gcloop.yml:2: review.dispatch: want a workflow file name like review.yml (or .github/workflows/review.yml), got "ci/review.yml"`},
		{"dispatch climbing out is refused", "review:\n  dispatch: .github/workflows/../x.yml\n", `gcloop.yml:2: review.dispatch: want a workflow file name like review.yml (or .github/workflows/review.yml), got ".github/workflows/../x.yml"`},
		{"dispatch of an extension alone is refused", "review:\n  dispatch: .yml\n", `gcloop.yml:2: review.dispatch: workflow file ".yml" has no name before the extension`},
		{"dispatch with spaces is refused", "review:\n  dispatch: my review.yml\n", `gcloop.yml:2: review.dispatch: workflow file "my review.yml": want letters, digits, '.', '_' or '-'`},
		{"dispatch empty is refused", "review:\n  dispatch: \"\"\n", "gcloop.yml:2: review.dispatch: empty workflow file name"},
		{"dispatch as a number is refused", "review:\n  dispatch: 42\n", `gcloop.yml:2: review.dispatch: workflow file "42": want a name ending in .yml or .yaml`},
		// commands.
		{"commands as a scalar are refused", "review:\n  commands: write\n", `gcloop.yml:2: review.commands: want a mapping with permission and max_retries, got "write"`},
		{"commands.permission read is refused", "review:\n  commands: {permission: read}\n", `gcloop.yml:2: review.commands.permission: want write, maintain or admin, got "read"`},
		{"commands.permission triage is refused", "review:\n  commands:\n    permission: triage\n", `gcloop.yml:3: review.commands.permission: want write, maintain or admin, got "triage"`},
		{"commands.max_retries above 20 is refused", "review:\n  commands: {max_retries: 21}\n", "gcloop.yml:2: review.commands.max_retries: want an integer from 0 to 20, got 21"},
		{"commands.max_retries negative is refused", "review:\n  commands: {max_retries: -1}\n", "gcloop.yml:2: review.commands.max_retries: want an integer from 0 to 20, got -1"},
		// Hostile YAML.
		{"an anchor is refused", "review: &r\n  max_rounds: 3\n", "gcloop.yml:1: anchors and aliases are not allowed (&r)"},
		{"an alias is refused", "review:\n  labels: [a]\naudit:\n  labels: *x\n", "gcloop.yml:4: aliases are not allowed (unknown anchor 'x' referenced)"},
		{"a billion laughs is refused", "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n", "gcloop.yml:1: anchors and aliases are not allowed (&a)"},
		{"a second document is refused", "review:\n  max_rounds: 3\n---\naudit:\n", "gcloop.yml:3: a second YAML document: the file holds one"},
		{"a tab indent is refused", "review:\n\tmax_rounds: 3\n", "gcloop.yml:2: invalid YAML: found character that cannot start any token"},
		{"an unclosed flow list is refused", "review:\n  labels: [a, b\n", "gcloop.yml:2: invalid YAML: did not find expected ',' or ']'"},
		{"deep nesting is refused", "review:\n  labels: " + strings.Repeat("[", 20) + strings.Repeat("]", 20) + "\n", "gcloop.yml:2: nesting deeper than 16 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := Parse("gcloop.yml", strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("Parse = %+v, want error %q", f, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *parse.Error", err)
			}
			if f != nil {
				t.Errorf("Parse returned a file with its error: %+v", f)
			}
		})
	}
}

func TestParseCapsTheFileSize(t *testing.T) {
	t.Parallel()
	in := "review:\n  max_rounds: 3\n" + strings.Repeat("# padding\n", MaxFileSize/10+1)
	_, err := Parse("gcloop.yml", strings.NewReader(in))
	want := "gcloop.yml: file larger than 1048576 bytes"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestParseReportsReadErrors(t *testing.T) {
	t.Parallel()
	_, err := Parse("gcloop.yml", errReader{})
	var pe *parse.Error
	if !errors.As(err, &pe) || !errors.Is(err, errBroken) {
		t.Fatalf("error = %v, want a ParseError wrapping the read error", err)
	}
	if got, want := err.Error(), "gcloop.yml: read: broken pipe"; got != want {
		t.Errorf("error = %s, want %s", got, want)
	}
}

var errBroken = errors.New("broken pipe")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBroken }

func TestSectionOfANilFileIsNil(t *testing.T) {
	t.Parallel()
	var f *File
	if s := f.Section("review"); s != nil {
		t.Errorf("Section = %+v, want nil", s)
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	keys := keysFor(decide.Coverage)
	tests := []struct{ name, key, want string }{
		{"one letter missing", "max_round", "max_rounds"},
		{"two letters swapped", "satll", "stall"},
		{"a hyphen for an underscore", "forbidden-markers", "forbidden_markers"},
		{"upper case", "TARGET", "target"},
		{"nothing near", "timeout", ""},
		{"a short key needs a close match", "lop", "loop"},
		{"a very long key gives nothing", strings.Repeat("x", 100), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := suggest(tt.key, keys); got != tt.want {
				t.Errorf("suggest(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	seed, err := os.ReadFile("testdata/gcloop.yml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	for _, s := range []string{
		"",
		"review:\n",
		"review:\n  max_rounds: 3\n  threshold: 7.5\n",
		"api:\n  loop: coverage\n  layers: {L1: 80, l2: 60}\n",
		"audit:\n  audit: {partial: revise}\n  commands: {permission: admin, max_retries: 3}\n",
		"a: &a [x]\nb: *a\n",
		"review:\n  labels: [a, 2, ~, [b]]\n",
		"coverage:\n  test_patterns: [\"[\", \"**\", \"/\"]\n",
		"review:\n  dispatch: .github/workflows/../x.yml\n",
		"? [a]\n: b\n",
		"--- !!map\n? !!str review\n: !!map {max_rounds: !!int 3}\n",
		"review: {max_rounds: 0x10}\n",
		"%YAML 1.1\n---\nreview:\n",
		"\xef\xbb\xbfreview:\n",
		"review:\n  <<: {a: 1}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		file, err := Parse("gcloop.yml", strings.NewReader(in))
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *parse.Error: %v", err, err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		for id, s := range file.Loops {
			if s.ID != id || s.Line < 1 {
				t.Fatalf("section %q: ID %q, line %d", id, s.ID, s.Line)
			}
			// Every parsed section resolves, and its knobs validate.
			if _, err := Resolve(s.Loop, id, file, Overrides{}); err != nil {
				t.Fatalf("Resolve(%s, %s): %v", s.Loop, id, err)
			}
		}
	})
}

func TestParseSyntaxErrorLines(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"a parser error on line 1", "[a\n", "gcloop.yml:1: invalid YAML: did not find expected ',' or ']'"},
		{"a parser error on line 3", "review:\n  max_rounds: 3\n  labels: [a, b\n", "gcloop.yml:3: invalid YAML: did not find expected ',' or ']'"},
		{"a missing node on line 2", "review:\n  labels: [\n", "gcloop.yml:2: invalid YAML: did not find expected node content"},
		{"a bad indent on line 3", "review:\n  max_rounds: 3\n stall: 1\n", "gcloop.yml:3: invalid YAML: did not find expected key"},
		{"a scanner error on line 1", "a: b: c\n", "gcloop.yml:1: invalid YAML: mapping values are not allowed in this context"},
		{"a scanner error on line 2", "review:\n  a: b: c\n", "gcloop.yml:2: invalid YAML: mapping values are not allowed in this context"},
		{"an unclosed quote", "review:\n  dispatch: \"x.yml\n", "gcloop.yml:2: invalid YAML: found unexpected end of stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("gcloop.yml", strings.NewReader(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}
