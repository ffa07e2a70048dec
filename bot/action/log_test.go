package action

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-cmp/cmp"
)

func TestLog(t *testing.T) {
	t.Parallel()
	steps := func(l *Log) {
		l.Group("evidence")
		l.Printf("evidence %s: read", "a\r\n::add-mask::x.json")
		l.Note("evidence b.json: 100% not found")
		l.Note("evidence b.json: 100% not found") // once
		l.Group("decision")
		l.Printf("decision: FIX")
		l.End()
		l.End()
	}
	tests := []struct {
		name    string
		actions bool
		want    string
	}{
		{"as the action", true, "::group::gcloop: evidence\n" +
			"gcloop: evidence a ::add-mask::x.json: read\n" +
			"gcloop: evidence b.json: 100%25 not found\n" +
			"::endgroup::\n::group::gcloop: decision\ngcloop: decision: FIX\n::endgroup::\n"},
		{"by hand", false, "gcloop: evidence a ::add-mask::x.json: read\n" +
			"gcloop: evidence b.json: 100%25 not found\ngcloop: decision: FIX\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			steps(NewLog(&b, tt.actions))
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
	steps(nil) // a nil log logs nothing and does not panic
}

// FuzzLogLine: whatever evidence text reaches the log, as a line or a
// note, it starts no workflow command: every line the log writes is a
// "gcloop: " line or one of its own group commands.
func FuzzLogLine(f *testing.F) {
	for _, s := range []string{"a.json", "x\r::add-mask::y", "\n::error::boom", "100%", "::group::x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		l := NewLog(&b, true)
		l.Group("evidence")
		l.Printf("evidence %s: read", s)
		l.Note(s)
		l.logEvidence(s, &decide.Evidence{Notes: []string{s}})
		l.End()
		for _, line := range strings.FieldsFunc(b.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
			if line != "::group::gcloop: evidence" && line != "::endgroup::" && !strings.HasPrefix(line, "gcloop: ") {
				t.Errorf("log line %q from %q", line, s)
			}
		}
	})
}
