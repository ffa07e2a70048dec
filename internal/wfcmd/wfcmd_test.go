package wfcmd

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want, prop string }{
		{"plain", "plain", "plain"},
		{"50% done", "50%25 done", "50%25 done"},
		{"x\r::add-mask::y", "x%0D::add-mask::y", "x%0D%3A%3Aadd-mask%3A%3Ay"},
		{"a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"},
		{"%0A", "%250A", "%250A"},
		{"file=a.go,line=3", "file=a.go,line=3", "file=a.go%2Cline=3"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := Property(tt.in); got != tt.prop {
				t.Errorf("Property(%q) = %q, want %q", tt.in, got, tt.prop)
			}
		})
	}
}

func TestWriteBlock(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"a plain report is written as it is", "# Report\n\n| a | b |\n", "# Report\n\n| a | b |\n"},
		{"a CR is escaped", "title\r::add-mask::x\n", "title%0D::add-mask::x\n"},
		{"a command line is defused", "text\n::set-output name=x::y\nmore", "text\n%3A%3Aset-output name=x::y\nmore"},
		{"an indented command line is defused", "text\n \t::warning::y", "text\n \t%3A%3Awarning::y"},
		{"a no-break space counts as white space", "\u00a0::error::y", "\u00a0%3A%3Aerror::y"},
		{"a single colon passes", ":x\n:\n", ":x\n:\n"},
		{"a colon before a CR passes", ":\r:x", ":%0D:x"},
		{"colons inside a line pass", "std::vector and a::b", "std::vector and a::b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			if err := WriteBlock(&b, tt.in); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("WriteBlock(%q) (-want +got):\n%s", tt.in, diff)
			}
			assertInert(t, b.String())
		})
	}
}

// The Writer gives the same output however the input is split.
func TestWriterSplitWrites(t *testing.T) {
	t.Parallel()
	in := "a\n \u00a0::x\r\n::y é\n:"
	var whole strings.Builder
	if err := WriteBlock(&whole, in); err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut <= len(in); cut++ {
		var b strings.Builder
		x := NewWriter(&b)
		x.Write([]byte(in[:cut]))
		x.Write([]byte(in[cut:]))
		x.Close()
		if b.String() != whole.String() {
			t.Errorf("cut at %d: %q, want %q", cut, b.String(), whole.String())
		}
	}
}

// assertInert checks the runner's view of out: no raw CR, and no line that
// reads as a command.
func assertInert(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, "\r") {
		t.Fatalf("raw CR in %q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::") {
			t.Fatalf("line %q of %q runs as a command", l, out)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"x\r::add-mask::y", "::set-output name=a::b", "%0D", "a\nb", "\r\n::x", "\u2003::error::x\n\t:\n:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, got := range []string{Escape(s), Property(s)} {
			if strings.ContainsAny(got, "\r\n") {
				t.Fatalf("escaped %q holds a raw CR or LF: %q", s, got)
			}
		}
		if strings.Contains(Property(s), ":") || strings.Contains(Property(s), ",") {
			t.Fatalf("property %q keeps : or ,", Property(s))
		}
		// What the runner reads as a command line comes from gcloop's own
		// prefix, never from s.
		if strings.HasPrefix(strings.TrimSpace("note: "+Escape(s)), "::") {
			t.Fatalf("escaped %q starts a command", s)
		}
		var b strings.Builder
		if err := WriteBlock(&b, s); err != nil {
			t.Fatal(err)
		}
		assertInert(t, b.String())
	})
}
