package action

import (
	"bytes"
	"testing"

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
