package coverage

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestReadRunJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want *decide.Evidence
	}{
		{
			name: "every key of the framework's file is read",
			in: `{"layer":"l1","framework":"jest","pass_rate":0.95,"coverage":82.5,"tests_passed":19,"tests_failed":1,
"all_passed":false,"defect_patterns":["null check", {"pattern":"async race","count":2}],"extra":{"x":[1,2]}}`,
			want: &decide.Evidence{
				Sources:  []string{"run-L1.json"},
				Coverage: &decide.CoverageFacts{Format: "run-json", Percent: ptr(82.5), Layer: "L1", Framework: "jest"},
				Tests:    &decide.TestFacts{Passed: 19, Failed: 1, PassRate: ptr(0.95)},
				Notes:    []string{"run-L1.json: defect patterns: null check; async race (2)"},
			},
		},
		{
			name: "null values are absent and contradictions are noted",
			in:   `{"layer":"L2","coverage":null,"pass_rate":null,"tests_passed":3,"tests_failed":2,"all_passed":true}`,
			want: &decide.Evidence{
				Sources:  []string{"run-L1.json"},
				Coverage: &decide.CoverageFacts{Format: "run-json", Layer: "L2"},
				Tests:    &decide.TestFacts{Passed: 3, Failed: 2},
				Notes:    []string{"run-L1.json: no coverage figure", "run-L1.json: all_passed is true but tests_failed is 2"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadRunJSON("run-L1.json", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadRunJSONErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"an empty file", "", "run.json: byte 0: want a JSON object: truncated JSON"},
		{"an array", "[1]", "run.json: byte 0: want a JSON object"},
		{"coverage above 100", `{"coverage": 101}`, `run.json: byte 11: "coverage" is 101: want a percentage from 0 to 100`},
		{"a pass rate given in percent", `{"pass_rate": 95}`, `run.json: byte 12: "pass_rate" is 95: want a rate from 0 to 1`},
		{"a negative count", `{"tests_failed": -1}`, `run.json: byte 15: "tests_failed" is -1: want a non-negative integer`},
		{"a fractional count", `{"tests_passed": 1.5}`, `run.json: byte 15: "tests_passed" is 1.5`},
		{"a number as a string", `{"coverage": "80"}`, `run.json: byte 11: "coverage" is "80"`},
		{"a huge exponent", `{"coverage": 1e999}`, `run.json: byte 11: "coverage" is 1e999`},
		{"an unknown layer", `{"layer": "L9"}`, `run.json: byte 8: "layer" is "L9": want L1, L2 or L3`},
		{"a key given twice", `{"coverage": 1, "coverage": 2}`, `run.json: byte 26: key "coverage" given twice`},
		{"a truncated object", `{"coverage": 1,`, "run.json: byte 15: want a key: truncated JSON"},
		{"data after the object", `{"coverage": 1} {}`, "run.json: byte 17: unexpected data after the JSON object"},
		{"a file over the cap", `{"x":"` + strings.Repeat("a", MaxRunJSONSize) + `"}`, "run.json: byte 1048576: file larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadRunJSON("run.json", strings.NewReader(tt.in))
			checkParseError(t, err, tt.want)
		})
	}
}
