package xmlsafe

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields prefix, then n bytes of c, then suffix, without
// holding the whole input.
type repeatReader struct {
	prefix, suffix string
	c              byte
	n              int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		switch {
		case r.prefix != "":
			k := copy(p[w:], r.prefix)
			r.prefix = r.prefix[k:]
			w += k
		case r.n > 0:
			k := int64(len(p) - w)
			k = min(k, r.n)
			for i := int64(0); i < k; i++ {
				p[w+int(i)] = r.c
			}
			r.n -= k
			w += int(k)
		case r.suffix != "":
			k := copy(p[w:], r.suffix)
			r.suffix = r.suffix[k:]
			w += k
		default:
			if w == 0 {
				return 0, io.EOF
			}
			return w, nil
		}
	}
	return w, nil
}

func readAll(d *Decoder) error {
	for {
		if _, err := d.Token(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func TestMaxToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      io.Reader
		max     int64
		wantErr bool
	}{
		{"tokens up to the cap pass", strings.NewReader(`<r a="` + strings.Repeat("x", 80) + `">` + strings.Repeat("y", 90) + `</r>`), 100, false},
		{"an attribute over the cap fails", &repeatReader{prefix: `<r a="`, c: 'x', n: 200, suffix: `"/>`}, 100, true},
		{"character data over the cap fails", &repeatReader{prefix: `<r>`, c: 'x', n: 200, suffix: `</r>`}, 100, true},
		{"many tokens each under the cap pass", &repeatReader{prefix: `<r>`, c: ' ', n: 0, suffix: strings.Repeat(`<l n="1234567890"/>`, 1000) + `</r>`}, 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := NewDecoder(tt.in)
			d.SetMaxToken(tt.max)
			err := readAll(d)
			if got := errors.Is(err, ErrTokenTooLong); got != tt.wantErr {
				t.Errorf("error %v, want ErrTokenTooLong: %v", err, tt.wantErr)
			}
		})
	}
}

// TestMaxTokenBoundsMemory reads a 256 MiB attribute: the decoder must stop
// at MaxToken, so the bytes allocated stay a small multiple of the cap
// whatever the input size. encoding/xml alone buffers the whole value
// (several times over while it grows). Not parallel: the allocation
// count is process-wide.
func TestMaxTokenBoundsMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	d := NewDecoder(&repeatReader{prefix: `<coverage><class filename="`, c: 'a', n: 256 << 20, suffix: `"/></coverage>`})
	err := readAll(d)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTokenTooLong) {
		t.Fatalf("error %v, want ErrTokenTooLong", err)
	}
	const limit = 16 * MaxToken
	if got := after.TotalAlloc - before.TotalAlloc; got > limit {
		t.Errorf("reading allocated %d MiB, want at most %d MiB", got>>20, limit>>20)
	}
}
