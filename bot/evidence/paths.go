package evidence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gcloop/gcloop/decide"
)

// Paths expands evidence paths named on a command line into files: a file
// stands for itself (reading it tells its format), a directory for the
// regular files under it that a rule of the families in recognises, in
// name order. Symlinks inside a directory are passed over: a person points
// the command line at files of their own, where a symlink is more likely a
// build tree's link than evidence (the workspace, which may hold a fork's
// files, refuses one that leads out instead). A path that does not exist,
// or a directory with no such file, is an error naming it.
func Paths(paths []string, in Family) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("read evidence %s: %w", p, unwrapPathError(err))
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		files, err := dirFiles(p, in)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// dirFiles lists the evidence files under the directory dir, as paths
// that start with dir.
func dirFiles(dir string, in Family) ([]string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("read evidence %s: %w", dir, unwrapPathError(err))
	}
	defer root.Close()
	rel, err := walk{root: root, in: in}.known(".")
	var ee *entryError
	switch {
	case errors.As(err, &ee):
		return nil, fmt.Errorf("read evidence %s: %w", filepath.Join(dir, filepath.FromSlash(ee.path)), unwrapPathError(ee.err))
	case err != nil:
		return nil, fmt.Errorf("read evidence %s: %w", dir, unwrapPathError(err))
	case len(rel) == 0:
		return nil, fmt.Errorf("read evidence %s: no file in the directory is in a format gcloop reads", dir)
	}
	files := make([]string, len(rel))
	for i, r := range rel {
		files[i] = filepath.Join(dir, filepath.FromSlash(r))
	}
	return files, nil
}

// ReadPaths reads every evidence path of a command line (see Paths); loop,
// when known, picks the fallbacks for files that cannot be read (Read).
func ReadPaths(paths []string, loop decide.Loop) ([]*decide.Evidence, error) {
	files, err := Paths(paths, Any)
	if err != nil {
		return nil, err
	}
	out := make([]*decide.Evidence, 0, len(files))
	for _, p := range files {
		e, err := ReadFile(p, loop)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// ReadFile reads the evidence file p (see Read).
func ReadFile(p string, loop decide.Loop) (*decide.Evidence, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read evidence %s: %w", p, unwrapPathError(err))
	}
	defer f.Close()
	return Read(p, f, loop)
}
