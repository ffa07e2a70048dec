package evidence

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkFiledAlike reads data filing each result right after reading it
// (as one core does) and with results filed in batches, on a goroutine of
// their own or not, and fails when the evidence or the errors differ.
func checkFiledAlike(t *testing.T, data []byte, batches ...int) {
	t.Helper()
	want, wantErr := readSARIF("t.sarif", bytes.NewReader(data), false, 1)
	for _, overlap := range []bool{true, false} {
		for _, batch := range batches {
			got, err := readSARIF("t.sarif", bytes.NewReader(data), overlap, batch)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("overlap %v, batch %d: error\n%v\nwant\n%v", overlap, batch, err, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("overlap %v, batch %d: evidence (-one by one +in batches):\n%s", overlap, batch, diff)
			}
		}
	}
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
	tests := []struct {
		name string
		log  string
	}{
		{"a realistic log", log},
		{"no results", sarifDoc(sarifRunJSON(sarifTool("t"), ""))},
		{"an unknown level late", nth(log, `"level":"warning"`, `"level":"loud"`, 250)},
		{"an unknown level, then bad JSON", nth(nth(log, `"level":"note"`, `"level":"loud"`, 60), `"startLine"`, `"startLine":,`, 900)},
		{"bad JSON, then an unknown level", nth(nth(log, `"level":"note"`, `"level":"loud"`, 120), `"startLine"`, `"startLine":,`, 100)},
		{"a bad type late", nth(log, `"startLine":`, `"startLine":"x",`, 1100)},
		{"truncated", log[:len(log)*2/3]},
		{"results before the tool", `{"version":"2.1.0","runs":[{"results":[` + strings.Join(pending, ",") + `],"tool":` + sarifTool("t", `{"id":"R1","defaultConfiguration":{"level":"error"}}`) + `}]}`},
		{"two runs", sarifDoc(sarifRunJSON(sarifTool("t"), strings.Join(manyGroups, ",")), sarifRunJSON(sarifTool("mypy"), strings.Join(pending, ",")))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkFiledAlike(t, []byte(tt.log), 1, 2, 7, 256)
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
		checkFiledAlike(t, data, 1, 2)
	})
}
