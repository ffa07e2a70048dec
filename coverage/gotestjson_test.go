package coverage

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestReadGoTestJSONFixture(t *testing.T) {
	t.Parallel()
	// Produced by `go test -json` on a tiny module (Go 1.24): a pass, a
	// failure, a skip and a table test with two subtests.
	data, err := os.ReadFile("testdata/gotestjson/cart.json")
	if err != nil {
		t.Fatal(err)
	}
	if !IsGoTestJSON(data) {
		t.Fatal("IsGoTestJSON = false for real go test -json output")
	}
	got, err := ReadGoTestJSON("cart.json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	want := &decide.TestFacts{Passed: 4, Failed: 1, Skipped: 1, Cases: []decide.TestCase{
		{Name: "example.com/cart.TestTotal", Status: decide.Passed},
		{Name: "example.com/cart.TestDiscount", Status: decide.Failed, Message: "cart_test.go:12: discount: got 5, want 10", Category: Categorize("cart_test.go:12: discount: got 5, want 10")},
		{Name: "example.com/cart.TestLater", Status: decide.Skipped},
		{Name: "example.com/cart.TestTable", Status: decide.Passed},
		{Name: "example.com/cart.TestTable/empty", Status: decide.Passed},
		{Name: "example.com/cart.TestTable/one", Status: decide.Passed},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("facts (-want +got):\n%s", diff)
	}
}

func TestReadGoTestJSON(t *testing.T) {
	t.Parallel()
	ev := func(action, test string) string {
		return `{"Action":"` + action + `","Package":"p","Test":"` + test + `"}` + "\n"
	}
	tests := []struct {
		name    string
		in      string
		want    []decide.TestCase
		wantErr string
	}{
		{"a test that never ended failed", ev("run", "TestA") + ev("output", "TestA"),
			[]decide.TestCase{{Name: "p.TestA", Status: decide.Failed, Message: "the test never ended (crash or timeout)", Category: Categorize("the test never ended (crash or timeout)")}}, ""},
		{"non-JSON lines are skipped", "# p\nbuild noise\n" + ev("pass", "TestA"),
			[]decide.TestCase{{Name: "p.TestA", Status: decide.Passed}}, ""},
		{"the last outcome wins", ev("fail", "TestA") + ev("pass", "TestA"),
			[]decide.TestCase{{Name: "p.TestA", Status: decide.Passed}}, ""},
		{"CRLF line ends", strings.ReplaceAll(ev("pass", "TestA"), "\n", "\r\n"),
			[]decide.TestCase{{Name: "p.TestA", Status: decide.Passed}}, ""},
		{"package events alone give no case", `{"Action":"pass","Package":"p"}` + "\n", []decide.TestCase{}, ""},
		{"a broken event is an error naming the line", ev("pass", "TestA") + "{\"Action\":\n", nil, "x.json:2: want one go test -json event"},
		{"an object without Action is an error", "{\"Test\":\"T\"}\n", nil, "x.json:1: want a go test -json event: no Action"},
		{"no event at all is an error", "hello\n", nil, "x.json:1: no go test -json event found"},
		{"an empty file is an error", "", nil, "x.json:1: no go test -json event found"},
		{"a line over the limit is an error", `{"Action":"output","Output":"` + strings.Repeat("x", GoTestJSONMaxLine) + `"}`, nil, "x.json:1: line longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadGoTestJSON("x.json", strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Cases); diff != "" {
				t.Errorf("cases (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsGoTestJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"an event", `{"Time":"2026-01-01T00:00:00Z","Action":"start","Package":"p"}`, true},
		{"noise before the first event", "# p\n" + `{"Action":"run","Package":"p","Test":"T"}`, true},
		{"a cut first line", `{"Time":"2026","Action":"output","Package":"p","Output":"aaa`, true},
		{"run-<layer>.json is not", `{"layer":"L1","pass_rate":1}`, false},
		{"XML is not", `<testsuites/>`, false},
		{"an unknown action is not", `{"Action":"jump","Package":"p"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := IsGoTestJSON([]byte(tt.in)); got != tt.want {
				t.Errorf("IsGoTestJSON = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzReadGoTestJSON reads arbitrary streams. Properties: no panic; an
// error is one line; the counts equal the cases.
func FuzzReadGoTestJSON(f *testing.F) {
	if data, err := os.ReadFile("testdata/gotestjson/cart.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"Action":"run","Package":"p","Test":"T"}` + "\n" + `{"Action":"output","Package":"p","Test":"T","Output":"\u00e9\n"}`))
	f.Add([]byte("noise\n{\"Action\":\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = IsGoTestJSON(data)
		got, err := ReadGoTestJSON("f.json", bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		if got.Passed+got.Failed+got.Skipped != len(got.Cases) {
			t.Fatalf("counts %d+%d+%d for %d cases", got.Passed, got.Failed, got.Skipped, len(got.Cases))
		}
	})
}
