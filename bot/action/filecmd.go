package action

import (
	"fmt"
	"os"
)

// FileCommandError is a runner file command (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY) gcloop cannot append to. go-githubactions panics on
// one; gcloop checks first and fails with this error instead (exit 1). The
// usual cause: the container runs as a user other than the file's owner
// (the runner makes the files as its own user), or the path is not mounted.
type FileCommandError struct {
	Name, Path string
	Err        error
}

func (e *FileCommandError) Error() string {
	return fmt.Sprintf("cannot write the runner's %s file %s (running as uid %d gid %d): %v; run the action as the runner's user or as root",
		e.Name, e.Path, os.Getuid(), os.Getgid(), e.Err)
}

func (e *FileCommandError) Unwrap() error { return e.Err }

// checkFileCommands opens the file commands the run writes the way
// go-githubactions does (append, create), so that a failure is an error,
// not a panic. Unset ones are skipped: a run by hand has none.
func checkFileCommands(c *Context) error {
	for _, fc := range []struct{ name, path string }{
		{"GITHUB_OUTPUT", c.OutputPath},
		{"GITHUB_STEP_SUMMARY", c.SummaryPath},
	} {
		if fc.path == "" {
			continue
		}
		f, err := os.OpenFile(fc.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return &FileCommandError{Name: fc.name, Path: fc.path, Err: err}
		}
		if err := f.Close(); err != nil {
			return &FileCommandError{Name: fc.name, Path: fc.path, Err: err}
		}
	}
	return nil
}
