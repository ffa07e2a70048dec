package action

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/load"
)

// workspaceFiles expands the evidence inputs — paths or globs relative to
// the workspace (doublestar syntax: `*` within a segment, `**` across
// segments), or absolute paths inside it — to files. A directory stands
// for the files under it that gcloop recognises. A path or glob the user
// named that matches nothing is an error naming it: a typo must never let
// a loop decide without its evidence (a critique would converge).
//
// Everything is read through an os.Root on the workspace: a named path or
// a file in a named directory that is a symlink out of the workspace is
// refused with an error naming it; a glob matches regular files only, so
// it never follows a symlink.
func workspaceFiles(ws string, patterns []string) (files []string, err error) {
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	defer root.Close()
	fsys := root.FS()
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, pat := range patterns {
		clean, err := inWorkspace(ws, pat)
		if err != nil {
			return nil, fmt.Errorf("evidence %w", err)
		}
		if !strings.ContainsAny(clean, "*?[{\\") {
			info, err := root.Stat(clean)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil, fmt.Errorf("evidence %s: not found in the workspace %s", pat, ws)
			case err != nil:
				return nil, refused(root, pat, clean, err)
			case !info.IsDir() && !info.Mode().IsRegular():
				return nil, fmt.Errorf("evidence %s: not a regular file", pat)
			case info.IsDir():
				found, err := knownFilesUnder(root, clean)
				if err != nil {
					return nil, fmt.Errorf("evidence %s: %w", pat, err)
				}
				if len(found) == 0 {
					return nil, fmt.Errorf("evidence %s: no file in the directory is in a format gcloop reads", pat)
				}
				for _, f := range found {
					add(f)
				}
			default:
				add(clean)
			}
			continue
		}
		if !doublestar.ValidatePattern(clean) {
			return nil, fmt.Errorf("evidence %q: not a valid glob pattern", pat)
		}
		base, _ := doublestar.SplitPattern(clean)
		n := 0
		err = fs.WalkDir(fsys, base, func(p string, d fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist) && p == base:
				return fs.SkipAll // the pattern's directory is not there
			case err != nil:
				return err
			case d.IsDir() && d.Name() == ".git":
				return fs.SkipDir
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if ok, _ := doublestar.Match(clean, p); ok {
				add(p)
				n++
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("evidence %s: %w", pat, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("evidence %s: matched no file in the workspace %s", pat, ws)
		}
	}
	return files, nil
}

// refused explains why a workspace path could not be opened: most often a
// symlink out of the workspace.
func refused(root *os.Root, pat, rel string, err error) error {
	if fi, lerr := root.Lstat(rel); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("evidence %s: a symlink that leads out of the workspace is refused (%v)", pat, err)
	}
	return fmt.Errorf("evidence %s: %w", pat, err)
}

// inWorkspace turns a path or glob an input names into a clean slash path
// relative to the workspace ws: a relative one as it is, an absolute one
// that lies inside ws made relative to it. One that leaves the workspace
// is refused. The error starts with the name, for the caller to prefix
// with the input.
func inWorkspace(ws, name string) (string, error) {
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

// knownFilesUnder lists the evidence files under a workspace directory.
// A symlink in it is opened through the root, so one out of the workspace
// is refused.
func knownFilesUnder(root *os.Root, dir string) ([]string, error) {
	var out []string
	err := fs.WalkDir(root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.Type()&fs.ModeSymlink != 0:
			fi, err := root.Stat(p) // refuses a symlink out of the workspace
			if err != nil {
				return refused(root, p, p, err)
			}
			if !fi.Mode().IsRegular() {
				return nil
			}
		case !d.Type().IsRegular():
			return nil // directories, pipes, devices
		}
		head, err := readHead(root, p)
		if err != nil {
			return refused(root, p, p, err)
		}
		if load.Known(head) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// readHead reads the first bytes of a regular file for sniffing.
func readHead(root *os.Root, p string) ([]byte, error) {
	f, err := root.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}

// readWorkspaceEvidence reads the evidence files of the workspace through
// an os.Root on it.
func readWorkspaceEvidence(ws string, files []string, loop decide.Loop) ([]*decide.Evidence, error) {
	if len(files) == 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	defer root.Close()
	var out []*decide.Evidence
	for _, rel := range files {
		f, err := root.Open(rel)
		if err != nil {
			return nil, refused(root, rel, rel, err)
		}
		e, err := load.Read(rel, f, loop) // streams: reports can be huge
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
