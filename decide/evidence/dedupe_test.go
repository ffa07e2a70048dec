package evidence

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

// manyResults builds n distinct results over four levels, each written
// copies times, the copies of one result interleaved with the others (the
// whole list repeated, as a log concatenated with itself).
func manyResults(n, copies int) string {
	levels := []string{"error", "warning", "note", "warning"}
	parts := make([]string, 0, n*copies)
	for c := 0; c < copies; c++ {
		for i := 0; i < n; i++ {
			parts = append(parts, fmt.Sprintf(`{"level":%q,"message":{"text":"problem %d"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"f%d.go"},"region":{"startLine":%d}}}]}`,
				levels[i%4], i, i%97, 1+i%500))
		}
	}
	return strings.Join(parts, ",")
}

// decidedCounts are the counts a decision reports for one evidence file:
// the kept findings (after decide.Merge) plus the omitted ones.
func decidedCounts(t *testing.T, ev *decide.Evidence) decide.Counts {
	t.Helper()
	m, err := decide.Merge(ev)
	if err != nil {
		t.Fatal(err)
	}
	c := decide.CountFindings(m.Findings)
	c.Critical += m.Omitted.Critical
	c.High += m.Omitted.High
	c.Medium += m.Omitted.Medium
	c.Low += m.Omitted.Low
	return c
}

// The same findings written several times in one log count as once, for
// any number of findings: below, at and well past MaxFindings (DESIGN §11:
// no dedupe that only works within the first N findings).
func TestReadSARIFCountsDoNotDependOnSize(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 10, MaxFindings, MaxFindings + 1, 25000} {
		want := decide.Counts{High: (n + 3) / 4, Medium: (n+2)/4 + n/4, Low: (n + 1) / 4}
		for _, copies := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%d findings ×%d", n, copies), func(t *testing.T) {
				t.Parallel()
				for _, beforeTool := range []bool{false, true} {
					run := sarifRunJSON(sarifTool("t"), manyResults(n, copies))
					if beforeTool {
						run = `{"results":[` + manyResults(n, copies) + `],"tool":` + sarifTool("t") + `}`
					}
					ev, err := ReadSARIF("t.sarif", strings.NewReader(sarifDoc(run)))
					if err != nil {
						t.Fatal(err)
					}
					got := decidedCounts(t, ev)
					if beforeTool && (want.Medium*copies > MaxFindings || n*copies > sarifMaxPending) {
						// Results before the tool past the held-back caps
						// (MaxFindings of one rule and level) cannot be
						// compared: counted conservatively, never fewer
						// than the truth, and noted.
						if got.Total() < want.Total() {
							t.Errorf("results before the tool: counts %+v below the distinct %+v", got, want)
						}
						if !strings.Contains(strings.Join(ev.Notes, "\n"), "not compared for repeats") {
							t.Errorf("no note on the results not compared: %q", ev.Notes)
						}
						continue
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("results before the tool %v: counts mismatch (-want +got):\n%s", beforeTool, diff)
					}
				}
			})
		}
	}
}

// Checkstyle XML repeated within one file counts once too.
func TestReadCheckstyleCountsDoNotDependOnSize(t *testing.T) {
	t.Parallel()
	const n = 3 * MaxFindings
	var errs strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&errs, `<error line="%d" severity="warning" message="problem %d" source="x"/>`, 1+i%300, i)
	}
	for _, copies := range []int{1, 2} {
		doc := `<?xml version="1.0"?><checkstyle version="8.0"><file name="a.java">` + strings.Repeat(errs.String(), copies) + `</file></checkstyle>`
		ev, err := ReadCheckstyle("cs.xml", strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(decide.Counts{Medium: n}, decidedCounts(t, ev)); diff != "" {
			t.Errorf("%d copies: counts mismatch (-want +got):\n%s", copies, diff)
		}
	}
}

// Past its bound the fingerprint set stops remembering: later findings
// are all counted (too many, never too few), the table stays bounded, and
// the reader's note says so.
func TestFingerprintsBound(t *testing.T) {
	t.Parallel()
	var k keeper
	k.seen.max = 1000
	finding := func(i int) decide.Finding {
		return decide.Finding{Severity: decide.Medium, File: "a.go", Line: i, Message: "m"}
	}
	counted := 0
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < 3000; i++ {
			if !k.duplicate(finding(i)) {
				counted++
			}
		}
	}
	if want := 3000 + 2000; counted != want {
		t.Errorf("counted %d findings, want %d (1000 remembered, 2000 past the bound counted twice)", counted, want)
	}
	if len(k.seen.slots) > 2048 { // at most half full, a power of two
		t.Errorf("table of %d slots, want at most 2048", len(k.seen.slots))
	}
	notes := k.dedupeNotes("x.sarif")
	want := []string{
		"x.sarif: 1000 repeated findings (same file, line, severity and message) counted once",
		"x.sarif: more than 1000 distinct findings; 4000 later ones could not be compared for repeats and were all counted (counts may be too high)",
	}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
}

// The dedupe key holds the rule id: two rules at one location are two
// findings, the same rule's result written twice is one, in SARIF (ruleId,
// or rule.id) and in Checkstyle (source).
func TestDedupeTellsRulesApart(t *testing.T) {
	t.Parallel()
	rules := sarifTool("gosec", `{"id":"G101"}`, `{"id":"G104"}`)
	checkstyle := func(errs string) string {
		return `<?xml version="1.0"?><checkstyle version="8.0"><file name="a.go">` + errs + `</file></checkstyle>`
	}
	tests := []struct {
		name  string
		read  func(string, *strings.Reader) (*decide.Evidence, error)
		in    string
		rules []string
	}{
		{
			name:  "SARIF: two rules at one location",
			in:    sarifDoc(sarifRunJSON(rules, sarifRes(`"ruleId":"G101"`)+","+sarifRes(`"ruleId":"G104"`))),
			rules: []string{"G101", "G104"},
		},
		{
			name:  "SARIF: the same rule's result twice",
			in:    sarifDoc(sarifRunJSON(rules, sarifRes(`"ruleId":"G101"`)+","+sarifRes(`"rule":{"id":"G101"}`))),
			rules: []string{"G101"},
		},
		{
			name:  "SARIF: the same result in two runs",
			in:    sarifDoc(sarifRunJSON(rules, sarifRes(`"ruleId":"G104"`)), sarifRunJSON(rules, sarifRes(`"ruleId":"G104"`))),
			rules: []string{"G104"},
		},
		{
			name:  "Checkstyle: two sources at one line",
			read:  func(n string, r *strings.Reader) (*decide.Evidence, error) { return ReadCheckstyle(n, r) },
			in:    checkstyle(`<error line="3" severity="warning" message="m" source="LineLength"/><error line="3" severity="warning" message="m" source="Indent"/>`),
			rules: []string{"LineLength", "Indent"},
		},
		{
			name:  "Checkstyle: the same source twice",
			read:  func(n string, r *strings.Reader) (*decide.Evidence, error) { return ReadCheckstyle(n, r) },
			in:    checkstyle(`<error line="3" severity="warning" message="m" source="Indent"/><error line="3" severity="warning" message="M." source="Indent"/>`),
			rules: []string{"Indent"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			read := tt.read
			if read == nil {
				read = func(n string, r *strings.Reader) (*decide.Evidence, error) { return ReadSARIF(n, r) }
			}
			ev, err := read("t.log", strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			m, err := decide.Merge(ev, ev) // the same file twice adds nothing
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range m.Findings {
				got = append(got, f.Rule)
			}
			if diff := cmp.Diff(tt.rules, got); diff != "" {
				t.Errorf("rules of the findings (-want +got):\n%s", diff)
			}
			repeats := strings.Contains(strings.Join(ev.Notes, "\n"), "repeated finding")
			if want := len(tt.rules) == 1; repeats != want {
				t.Errorf("a note on a repeat: %v, want %v (%q)", repeats, want, ev.Notes)
			}
		})
	}
}

// The fingerprint set quadruples while small and doubles past 4 MiB, so a
// large set ends no larger than doubling alone would make it.
func TestFingerprintsTableSize(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ n, slots int }{
		{1, 64}, {40, 256}, {100_000, 1 << 18}, {140_000, 1 << 19}, {300_000, 1 << 20},
	} {
		var s fingerprints
		for i := 1; i <= tt.n; i++ {
			if s.seenFP([2]uint64{uint64(i), uint64(i) * 0x9e3779b97f4a7c15}) {
				t.Fatalf("n=%d: fingerprint %d seen before", tt.n, i)
			}
		}
		if len(s.slots) != tt.slots {
			t.Errorf("%d fingerprints: a table of %d slots, want %d", tt.n, len(s.slots), tt.slots)
		}
	}
}
