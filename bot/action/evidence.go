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
// segments) — to files. A directory stands for the files under it that
// gcloop recognises. A pattern that matches nothing is noted, not fatal:
// the decision says whether evidence is missing.
//
// Everything is read through an os.Root on the workspace: a named path or
// a file in a named directory that is a symlink out of the workspace is
// refused with an error naming it; a glob matches regular files only, so
// it never follows a symlink.
func workspaceFiles(ws string, patterns []string) (files []string, notes []string, err error) {
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, nil, fmt.Errorf("open the workspace: %w", err)
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
		clean, err := cleanPattern(pat)
		if err != nil {
			return nil, nil, err
		}
		if !strings.ContainsAny(clean, "*?[{\\") {
			info, err := root.Stat(clean)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				notes = append(notes, fmt.Sprintf("evidence %s: not found in the workspace", pat))
			case err != nil:
				return nil, nil, refused(root, pat, clean, err)
			case !info.IsDir() && !info.Mode().IsRegular():
				return nil, nil, fmt.Errorf("evidence %s: not a regular file", pat)
			case info.IsDir():
				found, err := knownFilesUnder(root, clean)
				if err != nil {
					return nil, nil, fmt.Errorf("evidence %s: %w", pat, err)
				}
				if len(found) == 0 {
					notes = append(notes, fmt.Sprintf("evidence %s: no evidence file in the directory", pat))
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
			return nil, nil, fmt.Errorf("evidence %q: not a valid glob pattern", pat)
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
			return nil, nil, fmt.Errorf("evidence %s: %w", pat, err)
		}
		if n == 0 {
			notes = append(notes, fmt.Sprintf("evidence %s: matched no file", pat))
		}
	}
	return files, notes, nil
}

// refused explains why a workspace path could not be opened: most often a
// symlink out of the workspace.
func refused(root *os.Root, pat, rel string, err error) error {
	if fi, lerr := root.Lstat(rel); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("evidence %s: a symlink that leads out of the workspace is refused (%v)", pat, err)
	}
	return fmt.Errorf("evidence %s: %w", pat, err)
}

// cleanPattern keeps a pattern inside the workspace.
func cleanPattern(pat string) (string, error) {
	p := path.Clean(filepath.ToSlash(strings.TrimSpace(pat)))
	p = strings.TrimPrefix(p, "./")
	if path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("evidence %q: want a path inside the workspace", pat)
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
