package artifact

import (
	"errors"
	"fmt"
	"io"
)

// Budget counts what one round unpacks: the uncompressed bytes of every
// artifact it reads, as its readers take them, shared by the round's
// artifacts and held to Limits.Budget.
type Budget struct {
	// Used is the bytes unpacked so far.
	Used int64
}

// metered counts what a reader of one file takes against the file's and
// the round's limits. Its error is kept in over, so that a reader that
// turns read errors into a fallback (unreadable critique data) cannot hide
// a refusal.
type metered struct {
	r             io.Reader
	b             *Budget
	n             int64 // bytes read of this file
	max, budget   int64 // the limits per file and per round
	over          error
	artName, name string
}

func (m *metered) Read(p []byte) (int, error) {
	if m.over != nil {
		return 0, m.over
	}
	n, err := m.r.Read(p)
	if m.charge(n) {
		return 0, m.over
	}
	if err != nil && !errors.Is(err, io.EOF) {
		// A broken stream (a corrupt zip, a wrong checksum), named.
		err = fmt.Errorf("artifact %q: entry %q: read: %w", m.artName, m.name, err)
	}
	return n, err
}

// charge counts n bytes taken and reports whether that went over a limit
// (m.over then says which).
func (m *metered) charge(n int) bool {
	m.n += int64(n)
	m.b.Used += int64(n)
	switch {
	case m.b.Used > m.budget:
		m.over = fmt.Errorf("artifact %q: entry %q: takes the round past its budget of %s unpacked: %w", m.artName, m.name, Size(m.budget), ErrTooLarge)
	case m.n > m.max:
		m.over = fmt.Errorf("artifact %q: entry %q: decompresses to more than %s, the limit per file: %w", m.artName, m.name, Size(m.max), ErrTooLarge)
	}
	return m.over != nil
}
