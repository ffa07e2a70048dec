package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

// checkFiledAlike reads data filing each result right after reading it
// (as one core does), with results filed in batches, on a goroutine of
// their own or not, and with results read in parts (of the given sizes in
// bytes) on one to three workers, and fails when the evidence or the
// errors differ.
func checkFiledAlike(t *testing.T, data []byte, batches []int, parts []int, plain bool) {
	t.Helper()
	want, wantErr := readSARIF("t.sarif", bytes.NewReader(data), sarifOpts{batch: 1})
	var opts []sarifOpts
	for _, overlap := range []bool{true, false} {
		for _, batch := range batches {
			opts = append(opts, sarifOpts{overlap: overlap, batch: batch})
		}
	}
	for _, part := range parts {
		for _, workers := range []int{2, 3} {
			opts = append(opts, sarifOpts{overlap: workers == 3, batch: 2, workers: workers, part: part})
		}
	}
	// A plain log (valid, results that all start alike and hold nothing
	// that starts as they do) is read in parts throughout: no results
	// array goes back to the stream scanner (which would hide a part
	// reader that cannot read).
	plain = plain && wantErr == nil
	for _, o := range opts {
		sr := newSARIFReader("t.sarif", bytes.NewReader(data), o)
		var got *decide.Evidence
		err := sr.readLog()
		if err == nil {
			got = sr.finish()
		}
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%+v: error\n%v\nwant\n%v", o, err, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%+v: evidence (-one by one +in batches or parts):\n%s", o, diff)
		}
		if plain && sr.rewinds > 0 {
			t.Fatalf("%+v: a valid log was read again by the stream scanner", o)
		}
	}
}

// sarifIndent pretty-prints a log as many tools write it.
func sarifIndent(t *testing.T, log string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(log), "", "  "); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestReadSARIFFilesInBatchesAlike(t *testing.T) {
	t.Parallel()
	var big bytes.Buffer
	if err := writeBenchSARIF(&big, 1200); err != nil {
		t.Fatal(err)
	}
	log := big.String()
	nth := func(s, old, new string, n int) string { // replaces the n-th old
		i := 0
		for k := 0; k <= n; k++ {
			j := strings.Index(s[i:], old)
			if j < 0 {
				t.Fatalf("no %d-th %q", n, old)
			}
			i += j + len(old)
		}
		return s[:i-len(old)] + new + s[i:]
	}
	var manyGroups, pending []string
	for i := range 40 {
		manyGroups = append(manyGroups, sarifRes(fmt.Sprintf(`"ruleId":"R%d","level":"error"`, i)))
	}
	for i := range 700 {
		pending = append(pending, sarifRes(fmt.Sprintf(`"ruleId":"R%d","message":{"text":"m%d"}`, i%5, i%300)))
	}
	var compact bytes.Buffer
	if err := writeCompactSARIF(&compact, 1500); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		log   string
		plain bool
	}{
		{"a realistic log", log, true},
		{"a linter's compact log", compact.String(), true},
		{"pretty-printed", sarifIndent(t, log), true},
		{"no results", sarifDoc(sarifRunJSON(sarifTool("t"), "")), false},
		{"an unknown level late", nth(log, `"level":"warning"`, `"level":"loud"`, 250), false},
		{"an unknown level, then bad JSON", nth(nth(log, `"level":"note"`, `"level":"loud"`, 60), `"startLine"`, `"startLine":,`, 900), false},
		{"bad JSON, then an unknown level", nth(nth(log, `"level":"note"`, `"level":"loud"`, 120), `"startLine"`, `"startLine":,`, 100), false},
		{"a bad type late", nth(log, `"startLine":`, `"startLine":"x",`, 1100), false},
		{"truncated", log[:len(log)*2/3], false},
		{"a result not an object late", nth(log, `{"ruleId"`, `7,{"ruleId"`, 700), false},
		{"deep nesting in a late result", nth(log, `"partialFingerprints":`, `"deep":`+strings.Repeat("[", 80)+strings.Repeat("]", 80)+`,"partialFingerprints":`, 800), false},
		{"a result longer than the parts cut", nth(log, `"text":"source"`, `"text":"`+strings.Repeat("x", sarifMaxPart+10)+`"`, 600), false},
		{"quotes, backslashes and brackets in strings", nth(nth(log, `"text":"source"`, `"text":"a \"}],[{\" \\ b\\\\"`, 300), `"text":"source"`, `"text":"\\\""`, 301), false},
		{"a trailing comma in the results", strings.Replace(log, `]}]}`, `,]}]}`, 1), false},
		{"white space between the results", strings.ReplaceAll(log, `},{"ruleId"`, "}\n ,\t{\"ruleId\""), true},
		{"results that start otherwise", strings.ReplaceAll(log, `{"ruleId":"rules.lang.security.rule-0`, `{"message":{"text":"m"},"ruleId":"rules.lang.security.rule-0`), false},
		{"a result's opening within a string", nth(log, `"text":"source"`, `"text":"},{\"ruleId\""`, 400), false},
		{"results nested in a result", nth(log, `"partialFingerprints":`, `"x":[{"ruleId":"a"},{"ruleId":"b"}],"partialFingerprints":`, 500), false},
		{"results before the tool", `{"version":"2.1.0","runs":[{"results":[` + strings.Join(pending, ",") + `],"tool":` + sarifTool("t", `{"id":"R1","defaultConfiguration":{"level":"error"}}`) + `}]}`, false},
		{"two runs", sarifDoc(sarifRunJSON(sarifTool("t"), strings.Join(manyGroups, ",")), sarifRunJSON(sarifTool("mypy"), strings.Join(pending, ","))), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkFiledAlike(t, []byte(tt.log), []int{1, 2, 7, 256}, []int{1, 300, 4096, sarifPart}, tt.plain)
		})
	}
}

// FuzzReadSARIFInBatches: filing results in batches, on a goroutine of
// their own or not, gives what filing each result as it is read gives.
func FuzzReadSARIFInBatches(f *testing.F) {
	f.Add([]byte(sarifDoc(sarifRunJSON(sarifTool("t", `{"id":"R","defaultConfiguration":{"level":"error"}}`),
		sarifRes(`"ruleId":"R"`)+","+sarifRes(`"level":"loud"`)+","+sarifRes(`"level":"note"`)))))
	f.Add([]byte(`{"version":"2.1.0","runs":[{"results":[{"ruleId":"R","message":{"text":"a"}},{"ruleId":"R","message":{"text":"a"}},{"level":"x"},{"kind":"pass"}],"tool":{"driver":{"name":"t","rules":[{"id":"R"}]}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFiledAlike(t, data, []int{1, 2}, []int{1, 64}, false)
	})
}

// The levels prepare takes as they are read as sarifLevel reads them, and
// sarifLevelSeverity maps levels as decide.ParseSeverity does.
func TestSARIFLevelFastPath(t *testing.T) {
	t.Parallel()
	for _, l := range []string{"error", "warning", "note", "none", "Error", " x "} {
		if lv, ok := sarifLevel(l); (lv != l || !ok) && l == strings.ToLower(l) && l != " x " {
			t.Errorf("sarifLevel(%q) = %q, %v", l, lv, ok)
		}
		if want, _ := decide.ParseSeverity(l); sarifLevelSeverity(l) != want {
			t.Errorf("sarifLevelSeverity(%q) = %v, ParseSeverity %v", l, sarifLevelSeverity(l), want)
		}
	}
}
