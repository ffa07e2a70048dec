package pushfix

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"unicode/utf8"
)

// walker lists the workspace's files.
type walker struct {
	root        *os.Root
	fsys        fs.FS
	ws          Workspace
	tree        map[string]treeFile
	trackedDirs map[string]bool
	submodules  []string
	ignore      Gitignore
	disk        map[string]diskFile
	snap        *Snapshot
}

// walk lists directory dir ("" for the root); ignored says whether dir is
// ignored, which makes everything below it ignored.
func (w *walker) walk(dir string, ignored bool) error {
	name := dir
	if name == "" {
		name = "."
	}
	entries, err := fs.ReadDir(w.fsys, name)
	if err != nil {
		return fmt.Errorf("read workspace directory %q: %w", name, err)
	}
	if !ignored {
		for _, e := range entries {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				data, err := w.root.ReadFile(path.Join(name, ".gitignore"))
				if err != nil {
					return fmt.Errorf("read %s: %w", path.Join(dir, ".gitignore"), err)
				}
				w.ignore.Add(dir, data)
			}
		}
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		rel := e.Name()
		if dir != "" {
			rel = dir + "/" + rel
		}
		if !utf8.ValidString(e.Name()) {
			// Git could hold it, GitHub's API cannot: judging around it
			// would hide it from the guard.
			return fmt.Errorf("workspace path %q is not valid UTF-8: GitHub's API cannot hold it", rel)
		}
		if w.ws.Ignore != nil && w.ws.Ignore(rel) {
			continue
		}
		t := e.Type()
		switch {
		case t.IsDir():
			if f, ok := w.tree[rel]; ok && f.mode == ModeSubmodule {
				continue
			}
			if w.nestedRepo(rel) && !w.trackedDirs[rel] {
				w.snap.Notes = append(w.snap.Notes, fmt.Sprintf("%s: a nested Git repository, not compared", rel))
				continue
			}
			sub := ignored || w.ignore.Excluded(rel, true)
			if sub && !w.trackedDirs[rel] {
				continue
			}
			if err := w.walk(rel, sub); err != nil {
				return err
			}
		case t.IsRegular() || t&fs.ModeSymlink != 0:
			info, err := e.Info()
			if err != nil {
				return fmt.Errorf("stat workspace file %q: %w", rel, err)
			}
			w.disk[rel] = diskFile{
				symlink: t&fs.ModeSymlink != 0,
				exec:    info.Mode().Perm()&0o100 != 0,
				size:    info.Size(),
				ignored: ignored || w.ignore.Excluded(rel, false),
			}
		}
	}
	return nil
}

// nestedRepo reports whether directory rel holds a ".git" entry.
func (w *walker) nestedRepo(rel string) bool {
	_, err := w.root.Lstat(rel + "/.git")
	return err == nil
}
