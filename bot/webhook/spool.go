package webhook

import (
	"fmt"
	"io"
	"os"
)

// spool keeps a body that is being read: its first bytes in memory, the
// rest, past inMemory bytes, in a temporary file in dir, removed when the
// spool is closed (at once where the system allows removing an open file,
// so that a process that dies leaves nothing behind). When no file can be
// made there (a read-only or missing directory) the body stays in memory;
// the receiver's budget bounds it either way.
type spool struct {
	dir      string
	inMemory int64
	mem      []byte
	f        *os.File
	name     string // the file's name while it is still to be removed
	n        int64
	// fileErr is why no file could be made; the body then stays in memory.
	fileErr error
}

// Write keeps p.
func (s *spool) Write(p []byte) (int, error) {
	if s.f == nil && s.fileErr == nil && int64(len(s.mem)+len(p)) > s.inMemory {
		s.open()
	}
	if s.f != nil {
		n, err := s.f.Write(p)
		s.n += int64(n)
		if err != nil {
			return n, fmt.Errorf("spool the body: %w", err)
		}
		return n, nil
	}
	s.mem = append(s.mem, p...)
	s.n += int64(len(p))
	return len(p), nil
}

func (s *spool) open() {
	f, err := os.CreateTemp(s.dir, "gcloop-webhook-*")
	if err != nil {
		s.fileErr = err
		return
	}
	s.f = f
	if os.Remove(f.Name()) != nil {
		s.name = f.Name()
	}
}

// Bytes is the whole body, in one slice of its length.
func (s *spool) Bytes() ([]byte, error) {
	if s.f == nil {
		return s.mem, nil
	}
	b := make([]byte, s.n)
	k := copy(b, s.mem)
	if n, err := s.f.ReadAt(b[k:], 0); n < len(b)-k {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read the spooled body: %w", err)
	}
	return b, nil
}

// Close drops what the spool holds.
func (s *spool) Close() error {
	s.mem = nil
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
	}
	s.f = nil
	return err
}
