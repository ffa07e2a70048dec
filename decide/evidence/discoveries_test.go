package evidence

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadDiscoveriesFixture(t *testing.T) {
	t.Parallel()
	got, err := ReadDiscoveries("discoveries.ndjson", lnOpen(t, "discoveries.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	want := &decide.Evidence{
		Sources: []string{"discoveries.ndjson"},
		Findings: []decide.Finding{
			{Severity: decide.High, File: "src/auth/jwt.ts", Line: 42, Rule: "security", Message: "Token expiry not validated", Suggestion: "Add exp claim check in validateToken()", Source: "discoveries.ndjson:2", Loop: decide.Review},
			{Severity: decide.Medium, Rule: "feasibility", Message: "API Gateway Pattern: Single point of failure risk", Source: "discoveries.ndjson:4", Loop: decide.Critique},
			{Severity: decide.High, File: "design-tokens.json", Message: "Missing dark mode variant for semantic color tokens", Source: "discoveries.ndjson:5", Loop: decide.Audit},
		},
		Review:   &decide.ReviewFacts{},
		Critique: &decide.CritiqueFacts{Entries: 1},
		Audit:    &decide.AuditFacts{},
		Notes: []string{
			"discoveries.ndjson:3: skipped malformed line (invalid JSON at column 235: unexpected end of JSON input)",
			`discoveries.ndjson:6: skipped malformed line (issue_found: unknown severity "urgent" (want critical, high, medium, low, error, warning or note))`,
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("evidence (-want +got):\n%s", d)
	}
}

func TestReadDiscoveries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		in    string
		kinds []decide.Loop
		finds []decide.Finding
		notes []string
	}{
		{"only other types is valid and empty", `{"type":"design_decision","data":{}}` + "\n", nil, nil, nil},
		{"file and line in place of file_line", `{"type":"review_finding","data":{"file":"a.go","line":3,"severity":"low","title":"t"}}`,
			[]decide.Loop{decide.Review}, []decide.Finding{{Severity: decide.Low, File: "a.go", Line: 3, Message: "t", Source: "d:1", Loop: decide.Review}}, nil},
		{"an issue with a perspective", `{"type":"issue_found","data":{"file":"src/auth.ts","line":42,"severity":"critical","perspective":"security","description":"Hardcoded secret"}}`,
			[]decide.Loop{decide.Audit}, []decide.Finding{{Severity: decide.Critical, File: "src/auth.ts", Line: 42, Rule: "security", Message: "Hardcoded secret", Source: "d:1", Loop: decide.Audit}}, nil},
		{"an over-long line is skipped", strings.Repeat("x", lnMaxLine+5) + "\n" + `{"type":"x"}`, nil, nil,
			[]string{"d:1: skipped malformed line (longer than 1048576 bytes)"}},
		{"an evidence line without data is skipped", `{"type":"critique"}` + "\n" + `{"type":"x"}`, nil, nil,
			[]string{"d:1: skipped malformed line (critique: data is not an object)"}},
		{"a string line number is skipped", `{"type":"issue_found","data":{"severity":"low","line":"4"}}` + "\n" + `{"type":"x"}`, nil, nil,
			[]string{`d:1: skipped malformed line (issue_found: line: expected a non-negative integer, found string "4")`}},
		{"a line without type is skipped", `{"data":{}}` + "\n" + `{"type":"x"}`, nil, nil,
			[]string{"d:1: skipped malformed line (no type)"}},
		{"a non-string type is skipped", `{"type":3}` + "\n" + `{"type":"x"}`, nil, nil,
			[]string{"d:1: skipped malformed line (type is not a string)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadDiscoveries("d", strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.kinds, ev.Kinds()); d != "" {
				t.Errorf("kinds (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.finds, ev.Findings); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.notes, ev.Notes); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadDiscoveriesCapsNotes(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("garbage\n", lnMaxNotes+7) + `{"type":"x"}`
	ev, err := ReadDiscoveries("d", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(ev.Notes), lnMaxNotes+1; got != want {
		t.Fatalf("%d notes, want %d", got, want)
	}
	if got, want := ev.Notes[lnMaxNotes], "d: 7 more notes not shown"; got != want {
		t.Errorf("last note %q, want %q", got, want)
	}
}

func TestReadDiscoveriesErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"an empty file", "", "d: no discoveries: the file holds no JSON line"},
		{"blank lines only", "\n  \n", "d: no discoveries: the file holds no JSON line"},
		{"no valid line", "\nnot json\n[1]\n", "d:2: no valid discoveries line; first problem: not a JSON object"},
		{"only bad evidence lines", `{"type":"review_finding","data":{"severity":"??"}}`, `d:1: no valid discoveries line; first problem: review_finding: unknown severity "??" (want critical, high, medium, low, error, warning or note)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadDiscoveries("d", strings.NewReader(tc.in))
			lnCheckErr(t, err, tc.want)
		})
	}
}

func FuzzReadDiscoveries(f *testing.F) {
	f.Add(string(lnHead(&testing.T{}, "discoveries.ndjson")))
	f.Add(`{"type":"critique","data":{"severity":"HIGH","idea_title":"t"}}` + "\n{bad\n")
	f.Add(`{"type":"issue_found","data":{"file":"a","line":1e9,"severity":"low"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		ev, err := ReadDiscoveries("f.ndjson", strings.NewReader(in))
		lnFuzzCheck(t, ev, err)
	})
}
