package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/decide"
)

func TestReplaceStateKeepsTheReportAndSealsTheNewState(t *testing.T) {
	t.Parallel()
	st1, st2 := testState(t, "review", 1), testState(t, "review", 2)
	legacy := "## 🛑 gcloop review — ESCALATE\n\ntext\n" + marker(t, st1) + "\n"
	tests := []struct {
		name, body string
		key        string
		wantErr    string
	}{
		{name: "a report as Body writes it", body: report("review", marker(t, st1))},
		{name: "signed with the key", body: report("review", sealed(t, st1, scope7, "k")), key: "k"},
		{name: "a legacy report", body: legacy},
		{name: "no marker", body: Header("review") + "text\n", wantErr: "not its last line"},
		{name: "text after the marker", body: report("review", marker(t, st1)) + "tail", wantErr: "not its last line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReplaceState(tt.body, st2, scope7, []byte(tt.key))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			line, err := stateLine(got, scope7, []byte(tt.key))
			if err != nil {
				t.Fatalf("the new body is not trusted: %v\n%s", err, got)
			}
			st, err := ParseMarker(line, "review")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(st2, st); diff != "" {
				t.Errorf("state (-want +got):\n%s", diff)
			}
			if !strings.Contains(got, "text\n") {
				t.Errorf("the report text was lost:\n%s", got)
			}
		})
	}
}

func TestBodyIsTrustedOnlyWithItsKeyAndScope(t *testing.T) {
	t.Parallel()
	st := testState(t, "review", 2)
	d := &decide.Decision{Loop: decide.Review, ID: "review", Outcome: decide.Fix, Verdict: "FIX", Round: 2, MaxRounds: 3}
	body, err := Body(d, st, Options{}, scope7, []byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(body, Header("review")) {
		t.Errorf("body does not start with the header:\n%s", body)
	}
	other := scope7
	other.Repo = "fork"
	for _, tt := range []struct {
		name string
		s    Scope
		key  string
		ok   bool
	}{
		{"its key and scope", scope7, "k", true},
		{"no key reads it", scope7, "", true},
		{"another key", scope7, "k2", false},
		{"another repository", other, "k", false},
	} {
		if _, err := stateLine(body, tt.s, []byte(tt.key)); (err == nil) != tt.ok {
			t.Errorf("%s: err = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}
