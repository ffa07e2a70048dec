package evidence

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// OutputDir is the directory of the workspace where the action writes its
// files (.gcloop/<id>/report.md, decision.json, tasks.json): gcloop's own
// output, never evidence. The walks pass over every directory of that
// name, and a named path inside it is refused.
const OutputDir = ".gcloop"

// outputPath reports whether the slash path p (clean, relative) is
// OutputDir or inside it.
func outputPath(p string) bool {
	return p == OutputDir || strings.HasPrefix(p, OutputDir+"/")
}

// walk lists the evidence files under a directory of a tree opened as an
// os.Root: the one directory walk of the workspace and of the command
// line.
type walk struct {
	root *os.Root
	in   Family // the families whose files are listed
	// follow opens a symlink through the root, so that one that leads
	// out of the tree is refused; without it symlinks are passed over.
	follow bool
}

// known lists the regular files under dir (a slash path in the root)
// whose first bytes a rule of w.in recognises, in name order; other files,
// directories, pipes, devices, OutputDir directories and the files a
// generator hands over with its patch are passed over. An error about one
// entry is an *entryError.
func (w walk) known(dir string) ([]string, error) {
	var out []string
	err := fs.WalkDir(w.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == OutputDir:
			return fs.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			if !w.follow {
				return nil
			}
			fi, err := w.root.Stat(p) // refuses a symlink out of the tree
			if err != nil {
				return &entryError{p, err}
			}
			if !fi.Mode().IsRegular() {
				return nil
			}
		case !d.Type().IsRegular():
			return nil
		}
		if handedOver(p) {
			return nil // a generator's patch or baseline: never evidence
		}
		head, err := readHead(w.root, p)
		if err != nil {
			return &entryError{p, err}
		}
		if _, ok := Sniff(head, w.in); ok {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// entryError is a failure to open or read one file the walk came upon.
type entryError struct {
	path string // slash path in the root
	err  error
}

func (e *entryError) Error() string { return e.path + ": " + e.err.Error() }
func (e *entryError) Unwrap() error { return e.err }

// readHead reads the first SniffLen bytes of a file of the root.
func readHead(root *os.Root, p string) ([]byte, error) {
	f, err := root.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, SniffLen)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}

// unwrapPathError drops the *fs.PathError wrapper, whose path the caller
// already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
