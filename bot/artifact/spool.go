package artifact

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Spool is a downloaded artifact waiting on disk: a zip needs random access
// (its directory is at the end), and holding it in memory would let a
// fork's artifact size the bot's heap. Close removes it.
type Spool struct {
	f *os.File
	// Size is the bytes written.
	Size int64
	// path is the file's name when it could not be unlinked at once (a
	// system that keeps open files' names); Close removes it.
	path string
}

// newSpool creates an empty spool file in dir ("" = the system's temporary
// directory). Where the system allows it the file is unlinked at once, so
// it is gone with its descriptor even if the process is killed.
func newSpool(dir string) (*Spool, error) {
	f, err := os.CreateTemp(dir, "gcloop-artifact-*")
	if err != nil {
		return nil, fmt.Errorf("spool the artifact: %w", err)
	}
	s := &Spool{f: f}
	if err := os.Remove(f.Name()); err != nil {
		s.path = f.Name()
	}
	return s, nil
}

// ReadAt reads the spooled bytes (io.ReaderAt).
func (s *Spool) ReadAt(p []byte, off int64) (int, error) {
	if off >= s.Size {
		return 0, io.EOF
	}
	if rest := s.Size - off; int64(len(p)) > rest {
		n, err := s.f.ReadAt(p[:rest], off)
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	return s.f.ReadAt(p, off)
}

// reset empties the spool for another attempt.
func (s *Spool) reset() error {
	s.Size = 0
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
	err := s.f.Close()
	if s.path != "" {
		if rerr := os.Remove(s.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
		s.path = ""
	}
	return err
}
