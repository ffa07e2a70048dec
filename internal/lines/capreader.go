package lines

import (
	"errors"
	"io"
)

// ErrTooLarge is the error of a CapReader whose input is longer than its
// limit.
var ErrTooLarge = errors.New("input larger than its limit")

// CapReader reads at most max bytes of its input. Once they are read, it
// reads one byte more to tell an input of exactly max bytes (io.EOF) from a
// longer one: then Read fails with ErrTooLarge, and Over reports true.
type CapReader struct {
	r    io.Reader
	n    int64 // bytes read
	max  int64
	over bool
}

// NewCapReader caps r at max bytes.
func NewCapReader(r io.Reader, max int64) *CapReader {
	return &CapReader{r: r, max: max}
}

// N is the number of bytes read so far.
func (c *CapReader) N() int64 { return c.n }

// Over reports whether the input was found longer than the limit.
func (c *CapReader) Over() bool { return c.over }

func (c *CapReader) Read(p []byte) (int, error) {
	if c.over {
		return 0, ErrTooLarge
	}
	if c.n >= c.max {
		var one [1]byte
		k, err := io.ReadFull(c.r, one[:])
		if k > 0 {
			c.over = true
			return 0, ErrTooLarge
		}
		return 0, err // io.EOF, or the reader's error
	}
	if room := c.max - c.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
