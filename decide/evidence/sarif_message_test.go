package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadSARIFMessageStrings(t *testing.T) {
	t.Parallel()
	rule := `{"id":"R1","shortDescription":{"text":"short"},"messageStrings":{"default":{"text":"Variable '{0}' is unused in {1}."},"braces":{"text":"{{literal}} {0} {7}"}}}`
	tool := `{"driver":{"name":"t","globalMessageStrings":{"g":{"text":"global {0}"}},"rules":[` + rule + `]}}`
	res := func(msg string) string {
		return `{"ruleId":"R1","message":` + msg + `,"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.go"},"region":{"startLine":3}}}]}`
	}
	tests := []struct {
		name string
		msgs []string
		want []string
	}{
		{"A message given by id takes the rule's string with its arguments.", []string{`{"id":"default","arguments":["x","f"]}`}, []string{"Variable 'x' is unused in f."}},
		{"Two results of one rule on one line keep distinct messages.", []string{`{"id":"default","arguments":["x","f"]}`, `{"id":"default","arguments":["y","f"]}`}, []string{"Variable 'x' is unused in f.", "Variable 'y' is unused in f."}},
		{"An id the rule lacks comes from the driver's global strings.", []string{`{"id":"g","arguments":["z"]}`}, []string{"global z"}},
		{"Doubled braces are literal and a placeholder without argument stays.", []string{`{"id":"braces","arguments":["a"]}`}, []string{"{literal} a {7}"}},
		{"Placeholders in a text are filled from its arguments.", []string{`{"text":"{0} failed","arguments":["build"]}`}, []string{"build failed"}},
		{"A text without arguments is kept as written.", []string{`{"text":"map {0} {{x}}"}`}, []string{"map {0} {{x}}"}},
		{"An unknown id falls back to the rule's description.", []string{`{"id":"nope"}`}, []string{"short"}},
	}
	for _, tc := range tests {
		for _, order := range []string{"tool first", "results first"} {
			t.Run(tc.name+" ("+order+")", func(t *testing.T) {
				t.Parallel()
				var rs []string
				for _, m := range tc.msgs {
					rs = append(rs, res(m))
				}
				run := `{"tool":` + tool + `,"results":[` + strings.Join(rs, ",") + `]}`
				if order == "results first" {
					run = `{"results":[` + strings.Join(rs, ",") + `],"tool":` + tool + `}`
				}
				ev, err := ReadSARIF("t.sarif", strings.NewReader(sarifDoc(run)))
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, f := range ev.Findings {
					got = append(got, f.Message)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestReadSARIFProducerFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fixture   string
		findings  int      // as the producer counted them, where it prints any
		messages  []string // the first findings' messages, when checked
		wantNotes []string
	}{
		{
			// gosec's summary says "Issues : 9" (sarif-gosec.sarif.tool.txt),
			// two of them the same finding (G401 at more.go:10, one message),
			// counted once (DESIGN §3).
			name: "gosec writes runs before $schema", fixture: "sarif-gosec.sarif", findings: 8,
		},
		{
			name: "the SARIF SDK gives messages by id and arguments", fixture: "sarif-sdk-message-id.sarif", findings: 2,
			messages: []string{
				"runs[0].tool.driver.rules[0]: The rule 'RULE0001' has a 'name' property that is identical to its 'id' property.",
				"runs[0].tool.driver.rules[1]: The rule 'RULE0002' has a 'name' property that is identical to its 'id' property.",
			},
		},
		{
			name: "results of other kinds and absent ones are ignored", fixture: "sarif-kinds.sarif", findings: 3,
			messages:  []string{"no kind: a failure", "kind fail", "still there"},
			wantNotes: []string{"sarif-kinds.sarif: 5 results of a kind other than fail (pass, informational, review, ...) ignored", "sarif-kinds.sarif: 1 result with baselineState absent (fixed) ignored"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join("testdata", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			ev, err := ReadSARIF(tc.fixture, strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if len(ev.Findings) != tc.findings {
				t.Errorf("%d findings, want %d: %v", len(ev.Findings), tc.findings, ev.Findings)
			}
			for i, m := range tc.messages {
				if i < len(ev.Findings) && !strings.HasPrefix(ev.Findings[i].Message, m) {
					t.Errorf("finding %d message %q, want it to start with %q", i, ev.Findings[i].Message, m)
				}
			}
			if tc.wantNotes != nil {
				if diff := cmp.Diff(tc.wantNotes, ev.Notes); diff != "" {
					t.Errorf("notes (-want +got):\n%s", diff)
				}
			}
		})
	}
}
