package decide

import (
	"fmt"
	"testing"
)

// AppendDedupeKey's ASCII path writes exactly the key normalizeMessage
// gives.
func TestAppendDedupeKeyIsDedupeKey(t *testing.T) {
	t.Parallel()
	msgs := []string{"", "Plain", "  Lead and trail  ", "Tabs\tand\nnew\r\nlines\v\f", "End with punct.:;!, ", ".,", "UPPER lower 123", "Crème brûlée ÉTÉ", "a\u00a0b\u0085c", "İstanbul"}
	for _, m := range msgs {
		f := Finding{File: "a.go", Line: 42, Severity: High, Message: m}
		want := fmt.Sprintf("%s\x00%d\x00%d\x00%s", f.File, f.Line, f.Severity, normalizeMessage(f.Message, false))
		if got := string(AppendDedupeKey([]byte("x"), f))[1:]; got != want {
			t.Errorf("%q: key %q, want %q", m, got, want)
		}
	}
}

func FuzzAppendDedupeKey(f *testing.F) {
	f.Add("Some Message.", "a.go", 3)
	f.Fuzz(func(t *testing.T, msg, file string, line int) {
		fd := Finding{File: file, Line: line, Severity: Medium, Message: msg}
		want := fmt.Sprintf("%s\x00%d\x00%d\x00%s", fd.File, fd.Line, fd.Severity, normalizeMessage(fd.Message, false))
		if got := DedupeKey(fd); got != want {
			t.Fatalf("key %q, want %q", got, want)
		}
	})
}
