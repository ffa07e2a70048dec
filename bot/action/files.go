package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/decide"
)

// OutputDir is the directory of the workspace that holds the files of the
// runs, one directory per loop id: .gcloop/<id>/. The evidence walks pass
// it over.
const OutputDir = evidence.OutputDir

// Files are the workspace-relative slash paths of the files the run
// wrote: what the step outputs give. A later step's working directory is
// the workspace, so it reads them as they are.
type Files struct {
	Report, Decision, Tasks string
}

// OutputRoot is the directory a run writes its files under: the workspace
// GITHUB_WORKSPACE names, whose relative paths the outputs give (byHand
// false); or, for a run by hand (no GITHUB_WORKSPACE), a new gcloop-*
// temporary directory, whose absolute paths the outputs give: a run by
// hand — a dry run above all — leaves the user's checkout as it was, and
// no later step shares a workspace with it.
func OutputRoot(githubWorkspace string) (dir string, byHand bool, err error) {
	if githubWorkspace != "" {
		return githubWorkspace, false, nil
	}
	dir, err = os.MkdirTemp("", "gcloop-")
	if err != nil {
		return "", true, fmt.Errorf("write outputs: make a temporary directory: %w", err)
	}
	return dir, true, nil
}

// In gives the files' paths joined to dir: absolute when dir is.
func (f Files) In(dir string) Files {
	join := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	return Files{Report: join(f.Report), Decision: join(f.Decision), Tasks: join(f.Tasks)}
}

// WriteFiles writes the report, the decision JSON and the task JSON under
// .gcloop/<id>/ in the workspace ws (see OutputRoot): in a Docker action the workspace is the
// only directory the next steps share (RUNNER_TEMP is a host path the
// runner does not mount, or mounts where the next step cannot read it).
//
// Everything goes through an os.Root on ws. .gcloop and .gcloop/<id> must
// be directories, not symlinks (not even to a directory inside the
// workspace), and a file left where an output goes — a symlink included —
// is removed and the output made anew, so nothing but gcloop's own files
// is ever written. Run as root (a Docker action's default) in a workspace
// that belongs to another user (the runner's, uid 1001 on hosted
// runners), the directories and files are given to that user, so that the
// runner can delete them when it cleans the workspace.
func WriteFiles(ws string, res *Result) (Files, error) {
	d := res.Decision
	if !decide.ValidID(d.ID) { // the id names a directory
		return Files{}, fmt.Errorf("write outputs: loop id %q: %s", d.ID, decide.IDRule)
	}
	owner, err := ownerOf(ws)
	if err != nil {
		return Files{}, fmt.Errorf("write outputs: %w", err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return Files{}, fmt.Errorf("write outputs: open the workspace %s: %w", ws, err)
	}
	defer root.Close()
	dir := path.Join(OutputDir, d.ID)
	for _, p := range []string{OutputDir, dir} {
		if err := ownDir(root, owner, p); err != nil {
			return Files{}, fmt.Errorf("write outputs to %s: %w", p, err)
		}
	}
	rel := Files{
		Report:   path.Join(dir, "report.md"),
		Decision: path.Join(dir, "decision.json"),
		Tasks:    path.Join(dir, "tasks.json"),
	}
	full, err := fullReport(d)
	if err != nil {
		return Files{}, err
	}
	write := func(name string, fill func(io.Writer) error) error {
		if err := writeNew(root, owner, name, fill); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
		return nil
	}
	if err := write(rel.Report, func(w io.Writer) error { _, err := io.WriteString(w, full); return err }); err != nil {
		return Files{}, err
	}
	if err := write(rel.Decision, d.WriteJSON); err != nil {
		return Files{}, err
	}
	if err := write(rel.Tasks, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Tasks []decide.Task `json:"tasks"`
		}{Tasks: nonNilTasks(d.Tasks)})
	}); err != nil {
		return Files{}, err
	}
	return rel, nil
}

// ownDir makes the directory p of root when it is missing and gives it to
// owner; an existing p must be a directory itself, not a symlink.
func ownDir(root *os.Root, o owner, p string) error {
	name := filepath.FromSlash(p)
	fi, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := root.Mkdir(name, 0o755); err != nil {
			return err
		}
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink, not gcloop's directory: refused", p)
	case !fi.IsDir():
		return fmt.Errorf("%s is a %s, not a directory: refused", p, fi.Mode().Type())
	}
	return o.give(root, name)
}

// writeNew writes the file p of root anew: what was there is removed
// first (a symlink is removed, never followed), the file is created
// exclusively, filled, and given to owner.
func writeNew(root *os.Root, o owner, p string, fill func(io.Writer) error) error {
	name := filepath.FromSlash(p)
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return o.give(root, name)
}
