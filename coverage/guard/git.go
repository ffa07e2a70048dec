package guard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// zeroOID is Git's all-zero object id: no object on that side.
const zeroOID = "0000000000000000000000000000000000000000"

// FromGit returns the changes of the Git working tree at dir against the
// commit base ("" means HEAD): tracked files modified, added or deleted
// (staged or not) and untracked files that are not ignored. Old contents
// come from base, new contents from disk (a symbolic link's content is its
// target, as Git stores it). Paths are relative to the repository root,
// whatever subdirectory dir is. It runs the git binary, never a shell.
func FromGit(ctx context.Context, dir, base string) ([]Change, error) {
	if base == "" {
		base = "HEAD"
	}
	top, err := TopLevel(ctx, dir)
	if err != nil {
		return nil, err
	}
	commit, err := resolve(ctx, top, base)
	if err != nil {
		return nil, err
	}
	raw, err := Git(ctx, top, nil, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", "--ignore-submodules=none", commit, "--")
	if err != nil {
		return nil, err
	}
	entries, err := parseRaw(raw)
	if err != nil {
		return nil, fmt.Errorf("git diff --raw: %w", err)
	}
	others, err := Git(ctx, top, nil, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	for _, p := range strings.Split(string(others), "\x00") {
		if p != "" {
			entries = append(entries, rawEntry{oldMode: "000000", oldOID: zeroOID, path: p})
		}
	}
	entries = dedupe(entries)
	olds, err := catFiles(ctx, top, entries, func(e rawEntry) (string, string) { return e.oldMode, e.oldOID })
	if err != nil {
		return nil, err
	}
	var out []Change
	for i, e := range entries {
		c := Change{Path: e.path, Old: olds[i].data, OldExists: olds[i].exists, OldMode: sideMode(e.oldMode)}
		if e.newMode == "160000" {
			// A submodule: its recorded commit, not its files.
			id := e.newOID
			if id == zeroOID {
				id = "(modified in the working tree)"
			}
			c.New, c.NewExists, c.NewMode = []byte("Subproject commit "+id+"\n"), true, modeSubmodule
		} else if c.New, c.NewExists, c.NewMode, err = readDisk(top, e.path); err != nil {
			return nil, err
		}
		if c.Same() {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// FromTrees returns the changes between two tree-ish revisions (commits or
// trees, e.g. from git write-tree) of the repository at dir, both sides'
// contents read from Git.
func FromTrees(ctx context.Context, dir, from, to string) ([]Change, error) {
	top, err := TopLevel(ctx, dir)
	if err != nil {
		return nil, err
	}
	for _, r := range []string{from, to} {
		if r == "" || strings.HasPrefix(r, "-") {
			return nil, fmt.Errorf("invalid revision %q", r)
		}
	}
	raw, err := Git(ctx, top, nil, "diff-tree", "-r", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", from, to, "--")
	if err != nil {
		return nil, err
	}
	entries, err := parseRaw(raw)
	if err != nil {
		return nil, fmt.Errorf("git diff-tree: %w", err)
	}
	olds, err := catFiles(ctx, top, entries, func(e rawEntry) (string, string) { return e.oldMode, e.oldOID })
	if err != nil {
		return nil, err
	}
	news, err := catFiles(ctx, top, entries, func(e rawEntry) (string, string) { return e.newMode, e.newOID })
	if err != nil {
		return nil, err
	}
	out := make([]Change, 0, len(entries))
	for i, e := range entries {
		out = append(out, Change{Path: e.path, Old: olds[i].data, OldExists: olds[i].exists, New: news[i].data, NewExists: news[i].exists,
			OldMode: sideMode(e.oldMode), NewMode: sideMode(e.newMode)})
	}
	return out, nil
}

// TopLevel returns the root of the Git working tree that holds dir ("" is
// the current directory).
func TopLevel(ctx context.Context, dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	out, err := Git(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	top := strings.TrimRight(string(out), "\r\n")
	if top == "" {
		return "", fmt.Errorf("git rev-parse --show-toplevel: %s is not inside a working tree", dir)
	}
	return top, nil
}

// resolve turns a revision into a commit id.
func resolve(ctx context.Context, dir, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("invalid revision %q", rev)
	}
	out, err := Git(ctx, dir, nil, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.Stderr == "" {
			return "", fmt.Errorf("git rev-parse --verify: %q is not a commit", rev)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// GitError is a git command that failed: the command (without its
// options' values beyond the subcommand) and the first line of its stderr.
type GitError struct {
	Command string
	Stderr  string // first non-empty line
	Err     error
}

// Error renders "git <command>: <first stderr line>".
func (e *GitError) Error() string {
	if e.Stderr != "" {
		return e.Command + ": " + e.Stderr
	}
	return e.Command + ": " + e.Err.Error()
}

// Unwrap returns the underlying exec error.
func (e *GitError) Unwrap() error { return e.Err }

// Git runs the git binary in dir with extra environment entries env and
// returns its standard output. A failure is a *GitError naming the command
// and the first line of its standard error.
func Git(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	return GitInput(ctx, dir, env, nil, args...)
}

// GitInput is Git with standard input read from stdin (nil: none).
func GitInput(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, &GitError{Command: commandName(args), Stderr: firstLine(stderr.String()), Err: err}
	}
	return stdout.Bytes(), nil
}

// commandName renders "git <subcommand> <options>" for messages, without
// operands that may be long.
func commandName(args []string) string {
	parts := []string{"git"}
	for i, a := range args {
		if i > 0 && !strings.HasPrefix(a, "-") {
			break
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// firstLine returns the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// rawEntry is one record of git's --raw diff output.
type rawEntry struct {
	oldMode, newMode string
	oldOID, newOID   string
	path             string
}

// parseRaw reads "-z --raw" records: ":om nm oo no S\0path\0".
func parseRaw(b []byte) ([]rawEntry, error) {
	fields := strings.Split(string(b), "\x00")
	var out []rawEntry
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "" {
			continue
		}
		meta := strings.Fields(strings.TrimPrefix(f, ":"))
		if !strings.HasPrefix(f, ":") || len(meta) != 5 || i+1 >= len(fields) {
			return nil, fmt.Errorf("record %d: unexpected %q", len(out)+1, clip(f, 80))
		}
		i++
		out = append(out, rawEntry{oldMode: meta[0], newMode: meta[1], oldOID: meta[2], newOID: meta[3], path: fields[i]})
	}
	return out, nil
}

// dedupe keeps the first entry of each path, sorted by path.
func dedupe(es []rawEntry) []rawEntry {
	seen := map[string]bool{}
	out := es[:0]
	for _, e := range es {
		if !seen[e.path] {
			seen[e.path] = true
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// blob is one side's content.
type blob struct {
	data   []byte
	exists bool
}

// catFiles reads one side of every entry through a single
// "git cat-file --batch". A zero object id means the side does not exist;
// a submodule (mode 160000) reads as "Subproject commit <id>".
func catFiles(ctx context.Context, dir string, es []rawEntry, side func(rawEntry) (mode, oid string)) ([]blob, error) {
	out := make([]blob, len(es))
	var want []int
	var in bytes.Buffer
	for i, e := range es {
		mode, oid := side(e)
		switch {
		case oid == zeroOID || mode == "000000":
		case mode == "160000":
			out[i] = blob{data: []byte("Subproject commit " + oid + "\n"), exists: true}
		default:
			want = append(want, i)
			in.WriteString(oid + "\n")
		}
	}
	if len(want) == 0 {
		return out, nil
	}
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = dir
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, &GitError{Command: "git cat-file --batch", Err: err}
	}
	r := bufio.NewReaderSize(pipe, 64<<10)
	readErr := func() error {
		for _, i := range want {
			head, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("reading the header for %s: %w", es[i].path, err)
			}
			f := strings.Fields(head)
			if len(f) != 3 {
				return fmt.Errorf("%s: object %s", es[i].path, strings.TrimSpace(head))
			}
			size, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || size < 0 {
				return fmt.Errorf("%s: bad object size in %q", es[i].path, strings.TrimSpace(head))
			}
			data := make([]byte, size)
			if _, err := io.ReadFull(r, data); err != nil {
				return fmt.Errorf("reading %s: %w", es[i].path, err)
			}
			if _, err := r.Discard(1); err != nil {
				return fmt.Errorf("reading %s: %w", es[i].path, err)
			}
			out[i] = blob{data: data, exists: f[1] == "blob"}
		}
		return nil
	}()
	if readErr != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, &GitError{Command: "git cat-file --batch", Stderr: firstLine(stderr.String()), Err: readErr}
	}
	if err := cmd.Wait(); err != nil {
		return nil, &GitError{Command: "git cat-file --batch", Stderr: firstLine(stderr.String()), Err: err}
	}
	return out, nil
}

// sideMode is the mode of one side of a raw diff record, "" when the side
// does not exist.
func sideMode(m string) string {
	if m == "000000" {
		return ""
	}
	return m
}

// readDisk reads the working-tree side of a path: a regular file's content
// or a symbolic link's target, and the Git mode it would get (100644,
// 100755 for the owner's executable bit, 120000 for a link). A missing
// path or a directory does not exist as a file.
func readDisk(top, p string) ([]byte, bool, string, error) {
	full := filepath.Join(top, filepath.FromSlash(p))
	fi, err := os.Lstat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), err == nil && fi.IsDir():
		return nil, false, "", nil
	case err != nil:
		return nil, false, "", fmt.Errorf("reading %s: %w", p, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(full)
		if err != nil {
			return nil, false, "", fmt.Errorf("reading link %s: %w", p, err)
		}
		return []byte(t), true, modeSymlink, nil
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return nil, false, "", fmt.Errorf("reading %s: %w", p, err)
	}
	mode := modeFile
	if fi.Mode().Perm()&0o100 != 0 {
		mode = modeExec
	}
	return b, true, mode, nil
}
