package xmlsafe

import (
	"bufio"
	"errors"
	"fmt"
)

// ErrTokenTooLong is wrapped by the error for a token over the Decoder's
// cap (MaxToken unless SetMaxToken changed it).
var ErrTokenTooLong = errors.New("XML token too long")

// tokenError is the error for a token over max bytes.
type tokenError int64

func (e tokenError) Error() string {
	if e >= 1<<20 && e%(1<<20) == 0 {
		return fmt.Sprintf("XML token longer than %d MiB", e>>20)
	}
	return fmt.Sprintf("XML token longer than %d bytes", int64(e))
}

func (e tokenError) Unwrap() error { return ErrTokenTooLong }

// limitReader counts the bytes handed to encoding/xml and refuses to hand
// out more than max bytes past the end of the last token. It is an
// io.ByteReader, so encoding/xml reads from it without a buffer of its own
// and the count is exact.
type limitReader struct {
	r    *bufio.Reader
	max  int64 // bytes one token may take
	n    int64 // bytes read
	mark int64 // n at the end of the last token
}

func (l *limitReader) ReadByte() (byte, error) {
	if l.n-l.mark >= l.max {
		return 0, tokenError(l.max)
	}
	b, err := l.r.ReadByte()
	if err == nil {
		l.n++
	}
	return b, err
}

func (l *limitReader) Read(p []byte) (int, error) {
	room := l.max - (l.n - l.mark)
	if room <= 0 {
		return 0, tokenError(l.max)
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}
