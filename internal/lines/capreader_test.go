package lines

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestCapReader(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name     string
		in       io.Reader
		max      int64
		want     string
		wantErr  error
		wantOver bool
	}{
		{"shorter than the cap", strings.NewReader("abc"), 4, "abc", nil, false},
		{"exactly the cap", strings.NewReader("abcd"), 4, "abcd", nil, false},
		{"one byte over", strings.NewReader("abcde"), 4, "abcd", ErrTooLarge, true},
		{"far over, a byte at a time", iotest.OneByteReader(strings.NewReader(strings.Repeat("x", 100))), 4, "xxxx", ErrTooLarge, true},
		{"a zero cap on an empty input", strings.NewReader(""), 0, "", nil, false},
		{"a reader failing at the cap", io.MultiReader(strings.NewReader("abcd"), iotest.ErrReader(boom)), 4, "abcd", boom, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := NewCapReader(tt.in, tt.max)
			b, err := io.ReadAll(c)
			if string(b) != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("ReadAll = %q, %v; want %q, %v", b, err, tt.want, tt.wantErr)
			}
			if c.Over() != tt.wantOver {
				t.Errorf("Over = %v, want %v", c.Over(), tt.wantOver)
			}
			if _, err := c.Read(make([]byte, 8)); tt.wantOver && !errors.Is(err, ErrTooLarge) {
				t.Errorf("a read after the cap: %v, want ErrTooLarge", err)
			}
		})
	}
}
