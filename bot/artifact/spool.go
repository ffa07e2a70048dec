package artifact

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Spool is a downloaded artifact waiting to be unpacked: a zip needs random
// access (its directory is at the end), and holding it in memory would let
// a fork's artifact size the bot's heap. It is a temporary file, or — where
// no temporary directory can be written, as in a scratch image without
// /tmp or on a read-only root — memory, at most Limits.MaxZip. Close
// removes it.
type Spool struct {
	f   *os.File // nil: held in mem
	mem []byte
	// Size is the bytes written.
	Size int64
	// path is the file's name when it could not be unlinked at once (a
	// system that keeps open files' names); Close removes it.
	path string
}

// newSpool creates an empty spool file in dir ("" = the system's temporary
// directory). Where the system allows it the file is unlinked at once, so
// it is gone with its descriptor even if the process is killed. With
// inMemory, a directory that cannot be written gives a spool in memory
// instead of an error.
func newSpool(dir string, inMemory bool) (*Spool, error) {
	f, err := os.CreateTemp(dir, "gcloop-artifact-*")
	if err != nil {
		if inMemory {
			return &Spool{}, nil
		}
		return nil, fmt.Errorf("spool the artifact: %w", err)
	}
	s := &Spool{f: f}
	if err := os.Remove(f.Name()); err != nil {
		s.path = f.Name()
	}
	return s, nil
}

// InMemory reports whether the spool is held in memory, not in a file.
func (s *Spool) InMemory() bool { return s.f == nil }

// Write appends to the spool.
func (s *Spool) Write(p []byte) (int, error) {
	if s.f == nil {
		s.mem = append(s.mem, p...)
		return len(p), nil
	}
	return s.f.Write(p)
}

// ReadAt reads the spooled bytes (io.ReaderAt).
func (s *Spool) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("spool: negative offset")
	}
	if off >= s.Size {
		return 0, io.EOF
	}
	short := false
	if rest := s.Size - off; int64(len(p)) > rest {
		p, short = p[:rest], true
	}
	var n int
	var err error
	if s.f == nil {
		n = copy(p, s.mem[off:])
	} else {
		n, err = s.f.ReadAt(p, off)
	}
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

// reset empties the spool for another attempt.
func (s *Spool) reset() error {
	s.Size = 0
	if s.f == nil {
		s.mem = s.mem[:0]
		return nil
	}
	if err := s.f.Truncate(0); err != nil {
		return fmt.Errorf("spool the artifact: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spool the artifact: %w", err)
	}
	return nil
}

// Close closes and removes the spool file.
func (s *Spool) Close() error {
	if s.f == nil {
		s.mem = nil
		return nil
	}
	err := s.f.Close()
	if s.path != "" {
		if rerr := os.Remove(s.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
		s.path = ""
	}
	return err
}
