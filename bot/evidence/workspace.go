package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gcloop/gcloop/decide"
)

// A Workspace is a directory evidence is read from — the action's
// checkout — through an os.Root on it: a symlink that leads out of it is
// refused wherever it is met.
type Workspace struct {
	dir  string
	root *os.Root
	// not are workspace files that are never evidence (see Except).
	not map[string]bool
}

// Except names workspace files (paths as the inputs give them) that are
// never evidence, such as the baseline input's test results of the
// unchanged commit: a directory or glob passes them over, and naming one
// as evidence is an error. A path outside the workspace cannot be among
// its evidence and is left to whoever reads it to refuse.
func (w *Workspace) Except(paths ...string) {
	for _, p := range paths {
		if clean, err := InWorkspace(w.dir, p); err == nil {
			if w.not == nil {
				w.not = map[string]bool{}
			}
			w.not[clean] = true
		}
	}
}

// never reports whether the workspace file p (a clean slash path) is no
// evidence, whatever it holds: a file handed over with a patch, or one
// Except named.
func (w *Workspace) never(p string) bool { return handedOver(p) || w.not[p] }

// OpenWorkspace opens the workspace dir. Close it when done.
func OpenWorkspace(dir string) (*Workspace, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	return &Workspace{dir: dir, root: root}, nil
}

// Close closes the workspace's root.
func (w *Workspace) Close() error { return w.root.Close() }

// Files expands evidence inputs — paths or globs relative to the workspace
// (doublestar syntax: `*` within a segment, `**` across segments), or
// absolute paths inside it — to files, as slash paths relative to the
// workspace, each once, in the order the inputs name them. A directory
// stands for the files under it that gcloop recognises. A path or glob
// that matches nothing is an error naming it: a typo must never let a
// loop decide without its evidence (a critique would converge).
//
// A named path, or a file in a named directory, that is a symlink out of
// the workspace is refused with an error naming it; a glob matches
// regular files only, so it never follows a symlink, and passes .git and
// gcloop's own output directory (OutputDir) over. A named path inside
// OutputDir is refused: gcloop never reads its own output as evidence.
func (w *Workspace) Files(patterns []string) (files []string, err error) {
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, pat := range patterns {
		clean, err := InWorkspace(w.dir, pat)
		if err != nil {
			return nil, fmt.Errorf("evidence %w", err)
		}
		if outputPath(clean) {
			return nil, fmt.Errorf("evidence %s: %s/ holds gcloop's own output files, never evidence", pat, OutputDir)
		}
		if w.never(clean) {
			return nil, fmt.Errorf("evidence %s: it holds the test results of the commit before the change (a baseline), or the change itself, never evidence", pat)
		}
		var found []string
		if strings.ContainsAny(clean, "*?[{\\") {
			found, err = w.glob(pat, clean)
		} else {
			found, err = w.named(pat, clean)
		}
		if err != nil {
			return nil, err
		}
		kept := 0
		for _, f := range found {
			if !w.never(f) {
				add(f)
				kept++
			}
		}
		if kept == 0 {
			return nil, fmt.Errorf("evidence %s: matched only a baseline or a patch, never evidence", pat)
		}
	}
	return files, nil
}

// named is the file, or the evidence files under the directory, that
// the input pat names (clean: its path in the workspace).
func (w *Workspace) named(pat, clean string) ([]string, error) {
	info, err := w.root.Stat(clean)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("evidence %s: not found in the workspace %s", pat, w.dir)
	case err != nil:
		return nil, w.refused(pat, clean, err)
	case !info.IsDir() && !info.Mode().IsRegular():
		return nil, fmt.Errorf("evidence %s: not a regular file", pat)
	case !info.IsDir():
		return []string{clean}, nil
	}
	found, err := walk{root: w.root, in: Any, follow: true}.known(clean)
	var ee *entryError
	if errors.As(err, &ee) {
		err = w.refused(ee.path, ee.path, ee.err)
	}
	if err != nil {
		return nil, fmt.Errorf("evidence %s: %w", pat, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("evidence %s: no file in the directory is in a format gcloop reads", pat)
	}
	return found, nil
}

// glob is the regular files that the glob pat (clean: in the workspace)
// matches, whatever their content.
func (w *Workspace) glob(pat, clean string) ([]string, error) {
	if !doublestar.ValidatePattern(clean) {
		return nil, fmt.Errorf("evidence %q: not a valid glob pattern", pat)
	}
	base, _ := doublestar.SplitPattern(clean)
	var found []string
	err := fs.WalkDir(w.root.FS(), base, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == base:
			return fs.SkipAll // the pattern's directory is not there
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == ".git" || d.Name() == OutputDir):
			return fs.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if ok, _ := doublestar.Match(clean, p); ok {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("evidence %s: %w", pat, err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("evidence %s: matched no file in the workspace %s", pat, w.dir)
	}
	return found, nil
}

// Read reads the evidence files of the workspace (see Files) through its
// root, streaming each into its reader; loop picks the fallbacks (Read).
func (w *Workspace) Read(files []string, loop decide.Loop) ([]*decide.Evidence, error) {
	var out []*decide.Evidence
	for _, rel := range files {
		f, err := w.root.Open(rel)
		if err != nil {
			return nil, w.refused(rel, rel, err)
		}
		e, err := Read(rel, f, loop) // streams: reports can be huge
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// refused explains why the workspace path rel, named by pat, could not be
// opened: most often a symlink out of the workspace.
func (w *Workspace) refused(pat, rel string, err error) error {
	if fi, lerr := w.root.Lstat(rel); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("evidence %s: a symlink that leads out of the workspace is refused (%v)", pat, err)
	}
	return fmt.Errorf("evidence %s: %w", pat, err)
}

// InWorkspace turns a path or glob an input names into a clean slash path
// relative to the workspace ws: a relative one as it is, an absolute one
// that lies inside ws made relative to it. One that leaves the workspace
// is refused. The error starts with the name, for the caller to prefix
// with the input.
func InWorkspace(ws, name string) (string, error) {
	p := strings.TrimSpace(name)
	if filepath.IsAbs(p) && ws != "" {
		if rel, err := filepath.Rel(ws, p); err == nil {
			p = rel
		}
	}
	p = strings.TrimPrefix(path.Clean(filepath.ToSlash(p)), "./")
	if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("%q: outside the workspace %s; want a path relative to it, or an absolute path inside it", name, ws)
	}
	return p, nil
}
