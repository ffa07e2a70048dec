package jsonscan

import (
	"bytes"
	"strings"
	"testing"
)

func TestFromBytes(t *testing.T) {
	t.Parallel()
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	long := "1" + strings.Repeat("0", 2*MaxNumber)
	tests := []struct {
		name     string
		doc      string
		maxDepth int
		ok       bool
	}{
		{"an object", `{"a":[1,"x\u00e9",null,true]}`, 0, true},
		{"MaxDepth by default", nest(MaxDepth), 0, true},
		{"one over MaxDepth", nest(MaxDepth + 1), 0, false},
		{"a deeper limit", nest(2000), 2000, true},
		{"one over the deeper limit", nest(2001), 2000, false},
		{"a number longer than MaxNumber", "[" + long + "]", 0, true},
		{"a truncated string", `["abc`, 0, false},
		{"a truncated literal", `[nul`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := []byte(tt.doc)
			s := FromBytes("doc", b, tt.maxDepth)
			err := s.Skip(0)
			if err == nil {
				err = s.EndDoc("document")
			}
			if (err == nil) != tt.ok {
				t.Fatalf("Skip: %v, want ok %v", err, tt.ok)
			}
			if string(b) != tt.doc {
				t.Error("the document was written to")
			}
		})
	}
}

// FuzzFromBytes: within the streaming scanner's limits, a document read in
// place is accepted or refused as it is through a reader, and is not
// written to.
func FuzzFromBytes(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c\n"}]}`, `[`, `"\ud800"`, `{"a":1}x`, `-0.5e+3`, "\xef\xbb\xbf{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		keep := bytes.Clone(doc)
		skip := func(s *Scanner) error {
			if err := s.Skip(0); err != nil {
				return err
			}
			return s.EndDoc("document")
		}
		inPlace := skip(FromBytes("doc", doc, 0))
		streamed := skip(New("doc", bytes.NewReader(keep), 64))
		if !bytes.Equal(doc, keep) {
			t.Fatal("the document was written to")
		}
		// Shorter than MaxDepth, a document can neither nest too deep nor
		// hold a number too long for the streaming scanner.
		if (inPlace == nil) != (streamed == nil) && len(doc) <= MaxDepth {
			t.Fatalf("in place: %v; streamed: %v", inPlace, streamed)
		}
	})
}
