package pushfix

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Limits on a patch artifact (PatchLimits' defaults).
const (
	// DefaultPatchBytes is the size of the largest patch read: 16 MiB.
	DefaultPatchBytes = 16 << 20
	// DefaultPatchFiles is the most files one patch may change.
	DefaultPatchFiles = 500
	// DefaultPatchBinary is the bytes the binary changes of one patch may
	// inflate to, all together: 64 MiB.
	DefaultPatchBinary = 64 << 20
	// DefaultPatchLines is the most lines one patch may have. The parser
	// keeps about 55 bytes a line (16 MiB of one-character lines would be
	// 400 MB), so lines are capped beside bytes.
	DefaultPatchLines = 500_000
)

// PatchLimits bound what a patch may hold; zero fields take the defaults.
type PatchLimits struct {
	// MaxBytes is the patch's size in bytes.
	MaxBytes int64
	// MaxFiles is the number of files it changes.
	MaxFiles int
	// MaxBinary is the bytes its binary changes inflate to, together.
	MaxBinary int64
	// MaxLines is the number of lines of the patch.
	MaxLines int
}

func (l PatchLimits) withDefaults() PatchLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultPatchBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultPatchFiles
	}
	if l.MaxBinary <= 0 {
		l.MaxBinary = DefaultPatchBinary
	}
	if l.MaxLines <= 0 {
		l.MaxLines = DefaultPatchLines
	}
	return l
}

// ErrPatch is wrapped by every error of a patch that cannot be read: too
// large, malformed, or asking for something a patch of test files never
// needs (a file changed twice, an unsafe path, a binary change without its
// data). Such a patch is refused as a whole.
var ErrPatch = errors.New("patch refused")

// Patch is a parsed `git diff --binary` of a generator's change, read with
// ReadPatch.
type Patch struct {
	// Name names the patch in messages ("coverage-changes/gcloop-changes.patch").
	Name string
	// Files are the file changes, in the patch's order.
	Files []*gitdiff.File
}

// ReadPatch reads a `git diff --binary` (the output of `git diff --binary
// HEAD`, with or without `--full-index`) named name from r, within lim.
// The patch is outside input: its size, lines and file count are capped, every
// path must be a clean repository-relative path (no "..", no ".git", no
// absolute path), no path may be changed twice, and a binary change must
// carry its data (`GIT binary patch`). Every error names the file and,
// where the parser knows it, the line, and wraps ErrPatch. Binary changes
// are inflated and counted before they are parsed (checkBinary): each
// within its declared size and GitHub's file limit, all within
// lim.MaxBinary. An empty patch
// is no error: it changes nothing.
func ReadPatch(name string, r io.Reader, lim PatchLimits) (*Patch, error) {
	lim = lim.withDefaults()
	data, err := io.ReadAll(io.LimitReader(r, lim.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", name, err)
	}
	if int64(len(data)) > lim.MaxBytes {
		return nil, fmt.Errorf("%s: more than %d bytes, the limit for a patch: %w", name, lim.MaxBytes, ErrPatch)
	}
	// Count lines and file headers before parsing, so that a patch of a
	// million empty diffs, or of a million one-character lines, is refused
	// before the parser builds them.
	if n := bytes.Count(data, []byte("\n")); n > lim.MaxLines {
		return nil, fmt.Errorf("%s: more than %d lines, the limit for a patch: %w", name, lim.MaxLines, ErrPatch)
	}
	if n := countFileHeaders(data); n > lim.MaxFiles {
		return nil, fmt.Errorf("%s: %d file headers (\"diff --git\" lines), more than %d: %w", name, n, lim.MaxFiles, ErrPatch)
	}
	if err := checkBinary(data, MaxFileSize, lim.MaxBinary); err != nil {
		return nil, fmt.Errorf("%s: %v: %w", name, err, ErrPatch)
	}
	files, _, err := gitdiff.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", name, strings.TrimPrefix(err.Error(), "gitdiff: "), ErrPatch)
	}
	if len(files) > lim.MaxFiles {
		return nil, fmt.Errorf("%s: %d files, more than %d: %w", name, len(files), lim.MaxFiles, ErrPatch)
	}
	seen := map[string]int{}
	for i, f := range files {
		if err := checkPatchFile(f); err != nil {
			return nil, fmt.Errorf("%s: file %d (%s): %v: %w", name, i+1, fileName(f), err, ErrPatch)
		}
		for _, p := range touched(f) {
			if j, ok := seen[p]; ok {
				return nil, fmt.Errorf("%s: file %d (%s): %s is changed again, already by file %d: %w", name, i+1, fileName(f), p, j, ErrPatch)
			}
			seen[p] = i + 1
		}
	}
	return &Patch{Name: name, Files: files}, nil
}

// countFileHeaders counts the lines that start a file of a git diff.
func countFileHeaders(data []byte) int {
	n := bytes.Count(data, []byte("\ndiff --git "))
	if bytes.HasPrefix(data, []byte("diff --git ")) {
		n++
	}
	return n
}

// checkPatchFile refuses a file change that no test generator's diff
// holds, or that could not be applied exactly.
func checkPatchFile(f *gitdiff.File) error {
	for _, p := range []string{f.OldName, f.NewName} {
		if p != "" && !safePath(p) {
			return fmt.Errorf("path %q is not a clean repository-relative path", p)
		}
	}
	switch {
	case f.OldName == "" && f.NewName == "":
		return errors.New("names no file")
	case f.IsNew && f.OldName != "":
		return errors.New("a new file with an old name")
	case f.IsDelete && f.NewName != "":
		return errors.New("a deleted file with a new name")
	case !f.IsNew && f.OldName == "":
		return errors.New("no old name (\"--- a/...\") for a file that is not new")
	case !f.IsDelete && f.NewName == "":
		return errors.New("no new name (\"+++ b/...\") for a file that is not deleted")
	case f.IsBinary && f.BinaryFragment == nil:
		return errors.New("a binary change without its data (\"Binary files differ\"): make the patch with git diff --binary")
	case f.IsBinary && len(f.TextFragments) > 0:
		return errors.New("a binary change with text hunks")
	}
	for _, m := range []struct {
		which string
		mode  uint32
	}{{"old", uint32(f.OldMode)}, {"new", uint32(f.NewMode)}} {
		if m.mode == 0 {
			continue
		}
		switch gitMode(m.mode) {
		case ModeFile, ModeExecutable, ModeSymlink, ModeSubmodule:
		default:
			return fmt.Errorf("%s mode %o is no Git file mode (want 100644, 100755, 120000 or 160000)", m.which, m.mode)
		}
	}
	for i, frag := range f.TextFragments {
		if err := frag.Validate(); err != nil {
			return fmt.Errorf("hunk %d (%s): %v", i+1, strings.TrimSpace(frag.Header()), err)
		}
	}
	return nil
}

// touched are the repository paths a file change changes: its old name
// when the file is deleted or renamed away, and its new name.
func touched(f *gitdiff.File) []string {
	var out []string
	if f.OldName != "" && (f.IsDelete || f.IsRename) {
		out = append(out, f.OldName)
	}
	if f.NewName != "" {
		out = append(out, f.NewName)
	}
	return out
}

// fileName names a file change in messages: its new name, else its old.
func fileName(f *gitdiff.File) string {
	if f.NewName != "" {
		return f.NewName
	}
	return f.OldName
}

// gitMode is the six-digit octal Git mode of a mode parsed from a patch.
func gitMode(m uint32) string { return fmt.Sprintf("%06o", m) }
