package evidence

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
)

func valInt(n int) *int           { return &n }
func valFloat(v float64) *float64 { return &v }
func valBool(b bool) *bool        { return &b }

func valChk(name, status string, failed int, total *int) *decide.Check {
	return &decide.Check{Name: name, Status: status, Failed: failed, Total: total}
}

func TestReadValidationReportFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want *decide.Evidence
	}{
		{"validation-report-framework.json", &decide.Evidence{
			Sources: []string{"validation-report-framework.json"},
			Validation: &decide.ValidationFacts{
				Regressions: valInt(3),
				Passed:      valBool(false),
				Tests:       valChk("tests", "FAIL", 2, nil),
				Types:       valChk("types", "FAIL", 1, nil),
				Lint:        valChk("lint", "PASS", 0, nil),
				Quality:     valChk("quality", "IMPROVED", 0, nil),
				DebtBefore:  valFloat(12),
				DebtAfter:   valFloat(7),
				Improvement: valFloat(42),
			},
		}},
		{"validation-report-total.json", &decide.Evidence{
			Sources: []string{"validation-report-total.json"},
			Validation: &decide.ValidationFacts{
				Regressions: valInt(0),
				Passed:      valBool(true),
				Tests:       valChk("tests", "pass", 0, valInt(128)),
				Types:       valChk("types", "pass", 0, nil),
				Lint:        valChk("lint", "pass", 0, nil),
				Quality:     valChk("quality", "skipped", 0, nil),
				DebtBefore:  valFloat(20.5),
				DebtAfter:   valFloat(11),
				Improvement: valFloat(46.3),
			},
		}},
	}
	for _, tc := range tests {
		t.Run("The fixture "+tc.file+" is read.", func(t *testing.T) {
			t.Parallel()
			ev, err := ReadValidationReport(tc.file, lnOpen(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ev); diff != "" {
				t.Errorf("ReadValidationReport mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadValidationReportVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		want  decide.ValidationFacts
		notes []string
	}{
		{"total_regressions is the total.", `{"total_regressions":4}`, decide.ValidationFacts{Regressions: valInt(4)}, nil},
		{"regressions is the total.", `{"regressions":2}`, decide.ValidationFacts{Regressions: valInt(2)}, nil},
		{"total_regressions wins over a differing regressions.", `{"regressions":2,"total_regressions":5}`, decide.ValidationFacts{Regressions: valInt(5)},
			[]string{"v.json: byte 37: total_regressions 5 differs from regressions 2; total_regressions used"}},
		{"A regressions list counts its entries.", `{"regressions":[{"test":"a"},{"test":"b"}]}`, decide.ValidationFacts{Regressions: valInt(2)},
			[]string{"v.json: byte 15: regressions is a list; its 2 entries are counted"}},
		{"A regressions object gives its total.", `{"regressions":{"tests":1,"types":2,"total":3}}`, decide.ValidationFacts{Regressions: valInt(3)}, nil},
		{"A regressions object without total sums its counts.", `{"regressions":{"tests":1,"lint":2}}`, decide.ValidationFacts{Regressions: valInt(3)}, nil},
		{"A numeric string count is read.", `{"regressions":"3"}`, decide.ValidationFacts{Regressions: valInt(3)}, nil},
		{"Checks at the top level with short names are read.", `{"tests":{"status":"FAIL","failed":2,"total":10},"types":{"status":"PASS","errors":0}}`,
			decide.ValidationFacts{Tests: valChk("tests", "FAIL", 2, valInt(10)), Types: valChk("types", "PASS", 0, nil)}, nil},
		{"Checks at the top level with long names are read.", `{"test_suite":{"status":"FAIL","regressions":1},"lint_check":{"status":"FAIL","errors":4}}`,
			decide.ValidationFacts{Tests: valChk("tests", "FAIL", 1, nil), Lint: valChk("lint", "FAIL", 4, nil)}, nil},
		{"Checks in a checks object with short names are read.", `{"checks":{"lint":{"status":"FAIL","issues":3},"quality":{"status":"NO_CHANGE"}}}`,
			decide.ValidationFacts{Lint: valChk("lint", "FAIL", 3, nil), Quality: valChk("quality", "NO_CHANGE", 0, nil)}, nil},
		{"Checks in a checks array are read by name.", `{"checks":[{"name":"type_check","status":"FAIL","errors":2},{"name":"test_suite","passed":true}]}`,
			decide.ValidationFacts{Types: valChk("types", "FAIL", 2, nil), Tests: valChk("tests", "PASS", 0, nil)}, nil},
		{"A tests check counts errors besides failures.", `{"tests":{"status":"FAIL","failures":2,"errors":1}}`,
			decide.ValidationFacts{Tests: valChk("tests", "FAIL", 3, nil)}, nil},
		{"A lint check with errors and warnings counts errors.", `{"lint":{"status":"FAIL","errors":2,"warnings":9}}`,
			decide.ValidationFacts{Lint: valChk("lint", "FAIL", 2, nil)}, nil},
		{"A check given as a status word is read.", `{"checks":{"tests":"PASS"}}`, decide.ValidationFacts{Tests: valChk("tests", "PASS", 0, nil)}, nil},
		{"A check given as a boolean is read.", `{"checks":{"lint":false}}`, decide.ValidationFacts{Lint: valChk("lint", "FAIL", 0, nil)},
			[]string{`v.json: byte 18: check lint has status "FAIL" but no failure count`}},
		{"A check given as a count is read.", `{"checks":{"types":3}}`, decide.ValidationFacts{Types: valChk("types", "", 3, nil)}, nil},
		{"A null check is absent.", `{"passed":true,"checks":{"types":null}}`, decide.ValidationFacts{Passed: valBool(true)}, nil},
		{"An unknown check is noted.", `{"passed":true,"checks":{"security":{"status":"PASS"}}}`, decide.ValidationFacts{Passed: valBool(true)},
			[]string{`v.json: unknown check "security" in checks ignored`}},
		{"A check given twice keeps the first.", `{"tests":{"failed":1},"checks":{"test_suite":{"failed":2}}}`, decide.ValidationFacts{Tests: valChk("tests", "", 1, nil)},
			[]string{"v.json: byte 45: check tests given twice; the first is used"}},
		{"The debt score may be nested.", `{"passed":true,"debt_score":{"before":10,"after":4,"improvement":60}}`,
			decide.ValidationFacts{Passed: valBool(true), DebtBefore: valFloat(10), DebtAfter: valFloat(4), Improvement: valFloat(60)}, nil},
		{"A single debt score is the score after.", `{"passed":true,"debt_score":4}`, decide.ValidationFacts{Passed: valBool(true), DebtAfter: valFloat(4)},
			[]string{"v.json: debt_score is a single number; read as the debt score after"}},
		{"The improvement may be a percent string.", `{"passed":true,"improvement_percentage":"12.5 %"}`, decide.ValidationFacts{Passed: valBool(true), Improvement: valFloat(12.5)}, nil},
		{"Keys are read case-insensitively.", `{"Total-Regressions":1,"Passed":false}`, decide.ValidationFacts{Regressions: valInt(1), Passed: valBool(false)}, nil},
		{"A validation_results wrapper is read.", `{"session":"x","validation_results":{"passed":true,"regressions":0}}`, decide.ValidationFacts{Passed: valBool(true), Regressions: valInt(0)}, nil},
		{"A byte order mark is skipped.", "\uFEFF{\"passed\":true}", decide.ValidationFacts{Passed: valBool(true)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadValidationReport("v.json", strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, ev.Validation); diff != "" {
				t.Errorf("Validation mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.notes, ev.Notes); diff != "" {
				t.Errorf("Notes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadValidationReportUnreadable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"An empty file is unreadable.", ``, "v.json: byte 0: empty file, expected a validation report (a JSON object)"},
		{"Text is unreadable.", `validation passed`, "v.json: byte 0: expected a validation report (a JSON object), found 'v'"},
		{"An array is unreadable.", `[]`, "v.json: byte 0: expected a validation report (a JSON object), found an array"},
		{"Truncated JSON is unreadable.", `{"passed": true, "regressions": 1`, "v.json: byte 33: unexpected end of file, expected the rest of the JSON document"},
		{"Invalid JSON is unreadable.", `{"passed": true,, "regressions": 1}`, "v.json: byte 16: invalid JSON: expected a string as object key, found ','"},
		{"A passed flag of the wrong type is unreadable.", `{"passed": 1}`, "v.json: byte 11: passed: expected a boolean, found a number"},
		{"A negative count is unreadable.", `{"regressions": -2}`, "v.json: byte 16: regressions: -2 is not a count (a whole number from 0 to 1e9)"},
		{"A fractional count is unreadable.", `{"total_regressions": 1.5}`, "v.json: byte 22: total_regressions: 1.5 is not a count (a whole number from 0 to 1e9)"},
		{"A huge count is unreadable.", `{"regressions": 1e300}`, "v.json: byte 16: regressions: 1e+300 is not a count (a whole number from 0 to 1e9)"},
		{"A non-finite number is unreadable.", `{"debt_score_before": 1e999}`, `v.json: byte 22: debt_score_before: "1e999" is not a finite number`},
		{"A word for a number is unreadable.", `{"improvement_percentage": "lots"}`, `v.json: byte 27: improvement_percentage: "lots" is not a finite number`},
		{"A status of the wrong type is unreadable.", `{"checks":{"tests":{"status":3}}}`, "v.json: byte 29: checks.tests.status: expected a string, found a number"},
		{"Checks of the wrong type are unreadable.", `{"checks":"all good"}`, "v.json: byte 10: checks: expected an object or array of checks, found a string"},
		{"An object without report keys is unreadable.", `{"findings":[]}`, "v.json: byte 0: no total_regressions, regressions, passed, checks or debt score found: not a validation report"},
		{"Data after the report is unreadable.", `{"passed":true} x`, "v.json: byte 16: unexpected data after the validation report"},
		{"Deep nesting is unreadable.", `{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, "v.json: byte 516: JSON nested deeper than 512 levels"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := ReadValidationReport("v.json", strings.NewReader(tc.in))
			if err != nil {
				t.Fatalf("err = %v, want evidence marked unreadable", err)
			}
			want := &decide.Evidence{Sources: []string{"v.json"}, Validation: &decide.ValidationFacts{Unreadable: tc.want}, Notes: []string{tc.want}}
			if diff := cmp.Diff(want, ev); diff != "" {
				t.Errorf("ReadValidationReport mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadValidationReportTooLarge(t *testing.T) {
	t.Parallel()
	in := `{"passed":true,"log":"` + strings.Repeat("x", valMaxSize) + `"}`
	ev, err := ReadValidationReport("v.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := "v.json: byte 16777216: report larger than 16 MiB"; ev.Validation.Unreadable != want {
		t.Errorf("Unreadable = %q, want %q", ev.Validation.Unreadable, want)
	}
}

func TestReadValidationReportReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	_, err := ReadValidationReport("v.json", iotest.DataErrReader(iotest.ErrReader(boom)))
	var pe *parse.Error
	if !errors.Is(err, boom) || !errors.As(err, &pe) {
		t.Errorf("err = %v, want a ParseError wrapping the read error", err)
	}
}

func TestIsValidationReport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"The framework report is a validation report.", `{"validation_date":"x","passed":false,"regressions":3,"checks":{}}`, true},
		{"A report with total_regressions is a validation report.", "\uFEFF {\n  \"total_regressions\" : 0}", true},
		{"A report with debt scores is a validation report.", `{"debt_score_before": 3}`, true},
		{"A report with type and lint checks is a validation report.", `{"type_check":{},"lint_check":{}}`, true},
		{"A SARIF log is not a validation report.", `{"version":"2.1.0","runs":[{"results":[{"properties":{"regressions":1,"passed":true}}]}]}`, false},
		{"A review JSON is not a validation report.", `{"review_score":7,"gc_signal":"CONVERGED","findings":[]}`, false},
		{"A key mentioned in a value does not count.", `{"note":"\"total_regressions\" is missing"}`, false},
		{"An array is not a validation report.", `[{"total_regressions":1}]`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := isValidationReport([]byte(tc.head)); got != tc.want {
				t.Errorf("isValidationReport(%q) = %v, want %v", tc.head, got, tc.want)
			}
		})
	}
}

func FuzzReadValidationReport(f *testing.F) {
	for _, name := range []string{"validation-report-framework.json", "validation-report-total.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"checks":[{"name":"tests","failures":1,"errors":2,"total":"9"}],"regressions":[1,2],"debt_score":{"before":"3","after":1},"improvement":"66%"}`))
	f.Add([]byte(`{"validation_results":{"total_regressions":{"tests":1},"passed":"false","lint":true,"types":2}}`))
	f.Add([]byte(`{"passed": 1e999}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ReadValidationReport("f.json", bytes.NewReader(data))
		if err != nil {
			t.Fatalf("err = %v; only read failures are errors", err)
		}
		v := ev.Validation
		if v == nil {
			t.Fatal("no validation facts")
		}
		if v.Unreadable != "" {
			if strings.Contains(v.Unreadable, "\n") || len(ev.Notes) != 1 || ev.Notes[0] != v.Unreadable || !strings.HasPrefix(v.Unreadable, "f.json: byte ") {
				t.Fatalf("unreadable %q with notes %q", v.Unreadable, ev.Notes)
			}
			return
		}
		for _, c := range []*decide.Check{v.Tests, v.Types, v.Lint, v.Quality} {
			if c != nil && (c.Failed < 0 || c.Total != nil && *c.Total < 0) {
				t.Fatalf("bad check %+v", c)
			}
		}
		if v.Regressions != nil && *v.Regressions < 0 {
			t.Fatalf("negative regressions %d", *v.Regressions)
		}
	})
}
