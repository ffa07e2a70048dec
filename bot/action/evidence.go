package action

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/load"
)

// workspaceFiles expands the evidence inputs — paths or globs relative to
// the workspace (`*` within a segment, `**` across segments) — to files.
// A directory stands for the files under it that gcloop recognises. A
// pattern that matches nothing is noted, not fatal: the decision says
// whether evidence is missing.
func workspaceFiles(ws string, patterns []string) (files []string, notes []string, err error) {
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
		if !strings.ContainsAny(clean, "*?[") {
			full := filepath.Join(ws, filepath.FromSlash(clean))
			info, err := os.Stat(full)
			switch {
			case err != nil:
				notes = append(notes, fmt.Sprintf("evidence %s: not found in the workspace", pat))
			case info.IsDir():
				found, err := knownFilesUnder(ws, clean)
				if err != nil {
					return nil, nil, err
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
		n := 0
		err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(ws, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && globMatch(clean, rel) {
				add(rel)
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
func knownFilesUnder(ws, dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.Join(ws, filepath.FromSlash(dir)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		head, err := readHead(p)
		if err != nil {
			return err
		}
		if load.Known(head) {
			rel, _ := filepath.Rel(ws, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func readHead(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

// globMatch matches a slash path against a pattern whose segments follow
// path.Match and where `**` spans any number of segments.
func globMatch(pattern, name string) bool {
	return globSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func globSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if globSegments(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// readWorkspaceEvidence reads the evidence files of the workspace.
func readWorkspaceEvidence(ws string, files []string, loop decide.Loop) ([]*decide.Evidence, error) {
	var out []*decide.Evidence
	for _, rel := range files {
		f, err := os.Open(filepath.Join(ws, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("read evidence %s: %w", rel, err)
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
