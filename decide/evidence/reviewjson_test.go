package evidence

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadReviewJSONFixture(t *testing.T) {
	t.Parallel()
	got, err := ReadReviewJSON("review-results.json", lnOpen(t, "review-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := "review-results.json"
	want := &decide.Evidence{
		Sources: []string{src},
		Findings: []decide.Finding{
			{Severity: decide.High, File: "src/auth/jwt.ts", Line: 42, Rule: "security", Message: "Token expiry not validated", Suggestion: "Add exp claim check in validateToken()", Source: src},
			{Severity: decide.Medium, File: "src/middleware/auth.ts", Line: 17, Rule: "correctness", Message: "Missing null check on req.headers.authorization", Suggestion: "Return 401 when the header is absent", Source: src},
			{Severity: decide.Low, File: "src/auth/routes.ts", Rule: "maintainability", Message: "Duplicated error response helper", Source: src},
		},
		Review: &decide.ReviewFacts{Score: lnF64(6.5), Signal: "REVISION_NEEDED"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("evidence (-want +got):\n%s", d)
	}
}

func TestReadReviewJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		want *decide.ReviewFacts
		n    int // findings
	}{
		{"a numeric string score is read", `{"review_score":"7.5","gc_signal":"converged"}`, &decide.ReviewFacts{Score: lnF64(7.5), Signal: "CONVERGED"}, 0},
		{"empty strings are absent", `{"review_score":"","gc_signal":"","findings":[]}`, &decide.ReviewFacts{}, 0},
		{"nulls are absent", `{"review_score":null,"gc_signal":null,"findings":null}`, &decide.ReviewFacts{}, 0},
		{"a prose findings string is the summary", `{"id":"REVIEW-001","review_score":"8","gc_signal":"CONVERGED","findings":"Score: 8/10. No blockers."}`, &decide.ReviewFacts{Score: lnF64(8), Signal: "CONVERGED", Summary: "Score: 8/10. No blockers."}, 0},
		{"a BOM is skipped", "\ufeff{\"review_score\":9}", &decide.ReviewFacts{Score: lnF64(9)}, 0},
		{"unknown keys and nesting are skipped", `{"x":{"a":[1,[2,{"b":null}]]},"findings":[{"severity":"critical","title":"t","extra":{"k":[1]}}]}`, &decide.ReviewFacts{}, 1},
		{"a line of zero is unknown", `{"findings":[{"severity":"low","file":"a.go","line":0,"description":"d"}]}`, &decide.ReviewFacts{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadReviewJSON("r.json", strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, ev.Review); d != "" {
				t.Errorf("review (-want +got):\n%s", d)
			}
			if len(ev.Findings) != tc.n {
				t.Errorf("%d findings, want %d", len(ev.Findings), tc.n)
			}
		})
	}
}

func TestReadReviewJSONErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"an empty file", ``, `r.json: byte 0: empty file: expected a JSON object with review_score, gc_signal and findings`},
		{"an array at the top", `[1]`, `r.json: byte 0: expected a JSON object with review_score, gc_signal and findings, found an array`},
		{"an object without review keys", `{"a":1}`, `r.json: byte 6: not a review result: none of review_score, gc_signal or findings`},
		{"a score above ten", `{"review_score": 11}`, `r.json: byte 17: review_score 11 out of range (want 1 to 10)`},
		{"a score below one", `{"review_score": 0.5}`, `r.json: byte 17: review_score 0.5 out of range (want 1 to 10)`},
		{"an overflowing score", `{"review_score": 1e999}`, `r.json: byte 17: review_score: "1e999" is not a finite number`},
		{"a NaN string score", `{"review_score": "NaN"}`, `r.json: byte 17: review_score: "NaN" is not a number`},
		{"a boolean score", `{"review_score": true}`, `r.json: byte 17: review_score: expected a number, found a boolean`},
		{"a non-numeric string score", `{"review_score": "good"}`, `r.json: byte 17: review_score: "good" is not a number`},
		{"an unknown signal", `{"gc_signal": "MAYBE"}`, `r.json: byte 14: unknown gc_signal "MAYBE" (want CONVERGED or REVISION_NEEDED)`},
		{"a numeric signal", `{"gc_signal": 1}`, `r.json: byte 14: gc_signal: expected a string, found number 1`},
		{"findings as an object", `{"findings": {}}`, `r.json: byte 13: findings: expected an array, found an object`},
		{"findings as a number", `{"findings": 3}`, `r.json: byte 13: findings: expected an array, found a number`},
		{"a finding that is not an object", `{"findings": [1]}`, `r.json: byte 14: findings[0]: expected an object, found number 1`},
		{"an unknown severity", `{"findings": [{"severity":"low"}, {"severity":"urgent"}]}`, `r.json: byte 34: findings[1]: unknown severity "urgent" (want critical, high, medium, low, error, warning or note)`},
		{"a missing severity", `{"findings": [{"file":"a.go"}]}`, `r.json: byte 14: findings[0]: missing severity (want critical, high, medium or low)`},
		{"a string line", `{"findings": [{"severity":"high","line":"42"}]}`, `r.json: byte 14: findings[0]: line: expected a non-negative integer, found string "42"`},
		{"a fractional line", `{"findings": [{"severity":"high","line":4.5}]}`, `r.json: byte 14: findings[0]: line: expected a non-negative integer, found number 4.5`},
		{"a wrong-typed file", `{"findings": [{"severity":"high","file":7}]}`, `r.json: byte 14: findings[0]: file: expected string, found number`},
		{"a bad file_line", `{"findings": [{"severity":"high","file_line":":12"}]}`, `r.json: byte 14: findings[0]: file_line ":12": expected path:line`},
		{"a syntax error", `{"review_score": 7,}`, `r.json: byte 19: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"a truncated file", `{"review_score": 7, "findings": [`, `r.json: byte 33: invalid JSON: unexpected end of file`},
		{"trailing data", `{"review_score": 7} {}`, `r.json: byte 21: unexpected data after the review object`},
		{"deep nesting in an unknown key", `{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, `r.json: byte 69: JSON nested deeper than 64 levels`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadReviewJSON("r.json", strings.NewReader(tc.in))
			lnCheckErr(t, err, tc.want)
		})
	}
}

func TestReadReviewJSONCapsFindings(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"findings":[`)
	for i := 0; i < MaxFindings+3; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		sev := "low"
		if i == MaxFindings+1 {
			sev = "critical"
		}
		b.WriteString(`{"severity":"` + sev + `","description":"d"}`)
	}
	b.WriteString(`]}`)
	ev, err := ReadReviewJSON("r.json", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(ev.Findings); got != MaxFindings {
		t.Errorf("%d findings kept, want %d", got, MaxFindings)
	}
	if d := cmp.Diff(decide.Counts{Low: 3}, ev.Omitted); d != "" {
		t.Errorf("omitted (-want +got):\n%s", d)
	}
	if c := decide.CountFindings(ev.Findings); c.Critical != 1 {
		t.Errorf("the critical finding was dropped: %+v", c)
	}
}

func FuzzReadReviewJSON(f *testing.F) {
	f.Add(string(lnHead(&testing.T{}, "review-results.json")))
	for _, s := range []string{
		`{"review_score":"7.5","gc_signal":"CONVERGED","findings":"prose"}`,
		`{"findings":[{"severity":"high","file_line":"a.go:1:2"}]}`,
		`{"x":[[[[{}]]]],"review_score":1e3}`,
		"\ufeff{}",
		`{"findings":[{"severity":"HIGH","line":-1}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ev, err := ReadReviewJSON("f.json", strings.NewReader(in))
		lnFuzzCheck(t, ev, err)
	})
}
