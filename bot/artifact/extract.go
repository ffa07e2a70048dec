// Package artifact lists, downloads and unpacks GitHub Actions artifacts.
// Every byte of an artifact is treated as hostile (it may come from a fork's
// run): sizes, entry counts and paths are checked before anything is used, and
// decompressed sizes are counted, never taken from headers.
package artifact

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"
)

// Limits bound what the artifacts of one round may cost. Zero fields take
// the defaults.
type Limits struct {
	// Budget is the uncompressed bytes a round may unpack from all its
	// artifacts together; default DefaultBudget (64 MiB).
	Budget int64
	// MaxZip is the compressed bytes of one artifact, as the artifact list
	// announces it and as downloaded; default the budget.
	MaxZip int64
	// MaxFiles is the entries of one zip (directories included); default
	// 10 000.
	MaxFiles int
	// MaxFile is the uncompressed bytes of one file; default the budget.
	MaxFile int64
	// Dir is where downloads are spooled; "" = the system's temporary
	// directory, or memory (at most MaxZip) where that cannot be written.
	Dir string
}

// The default Limits.
const (
	DefaultBudget   = 64 << 20
	DefaultMaxFiles = 10000
)

func (l Limits) withDefaults() Limits {
	if l.Budget <= 0 {
		l.Budget = DefaultBudget
	}
	if l.MaxZip <= 0 {
		l.MaxZip = l.Budget
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxFile <= 0 {
		l.MaxFile = l.Budget
	}
	return l
}

// Errors callers may test with errors.Is.
var (
	// ErrTooLarge: a size or count limit was exceeded.
	ErrTooLarge = errors.New("over the limit")
	// ErrUnsafe: an entry that could escape, alias or mislead (zip slip,
	// symlink, duplicate, encryption, unknown compression).
	ErrUnsafe = errors.New("unsafe entry")
	// ErrNotFound: the artifact does not exist (or the token cannot see it).
	ErrNotFound = errors.New("artifact not found")
	// ErrExpired: the artifact's retention period is over.
	ErrExpired = errors.New("artifact expired")
)

// Refused reports whether err is an artifact gcloop refuses to read —
// over a limit, unsafe, or a broken zip — as opposed to one it could not
// get: a refusal does not go away by trying again.
func Refused(err error) bool {
	var corrupt flate.CorruptInputError
	return errors.Is(err, ErrTooLarge) || errors.Is(err, ErrUnsafe) ||
		errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrAlgorithm) ||
		errors.As(err, &corrupt)
}

var (
	zipMagic      = []byte("PK\x03\x04")
	emptyZipMagic = []byte("PK\x05\x06")
	dirMagic      = []byte("PK\x01\x02")
)

// IsZip reports whether data starts like a zip archive (a local file header,
// or the end-of-directory record of an empty archive).
func IsZip(data []byte) bool {
	return bytes.HasPrefix(data, zipMagic) || bytes.HasPrefix(data, emptyZipMagic)
}

// Unpack reads the artifact called name from r (size bytes): a zip, with
// every entry checked before any is read, or else an unzipped single-file
// artifact (uploaded with archive: false) whose one file is called name.
// Each file's first bytes (at most sniffLen) go to keep; a file it keeps
// is handed to fn as a stream, decompressed as fn reads it, and every byte
// fn takes is charged to b and to lim.MaxFile; the others are returned in
// skipped, and none of their bytes is kept. Nothing of a file is held in
// memory here. Directories are skipped. Errors name the artifact and the
// entry; a limit exceeded while fn reads ends Unpack with that error,
// whatever fn returned.
func Unpack(name string, r io.ReaderAt, size int64, lim Limits, b *Budget, sniffLen int, keep func(head []byte) bool, fn func(file string, r io.Reader) error) (skipped []string, err error) {
	return UnpackFiles(name, r, size, lim, b, sniffLen, func(_ string, head []byte) bool { return keep(head) }, fn)
}

// UnpackFiles is Unpack whose keep also sees each file's name (cleaned,
// relative to the artifact's root), for files told by name as well as by
// content: the patch of a generator's change and its baseline.
func UnpackFiles(name string, r io.ReaderAt, size int64, lim Limits, b *Budget, sniffLen int, keep func(file string, head []byte) bool, fn func(file string, r io.Reader) error) (skipped []string, err error) {
	lim = lim.withDefaults()
	if size > lim.MaxZip {
		return nil, fmt.Errorf("artifact %q: %d bytes, more than %s: %w", name, size, Size(lim.MaxZip), ErrTooLarge)
	}
	magic := make([]byte, 4)
	n, err := r.ReadAt(magic, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("artifact %q: read: %w", name, err)
	}
	if !IsZip(magic[:n]) {
		clean, err := safeName(name)
		if err != nil {
			return nil, fmt.Errorf("artifact %q: unzipped artifact name: %v: %w", name, err, ErrUnsafe)
		}
		fe := fileEntry{name: clean, open: func() (io.ReadCloser, error) { return io.NopCloser(io.NewSectionReader(r, 0, size)), nil }}
		return feed(name, []fileEntry{fe}, lim, b, sniffLen, keep, fn)
	}

	// Every directory record costs the zip package a few hundred bytes of
	// heap: count them (an upper bound) before it reads the directory.
	if dirs, err := countMagic(io.NewSectionReader(r, 0, size), dirMagic); err != nil {
		return nil, fmt.Errorf("artifact %q: read: %w", name, err)
	} else if dirs > int64(lim.MaxFiles) {
		return nil, fmt.Errorf("artifact %q: more than %d entries: %w", name, lim.MaxFiles, ErrTooLarge)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // insecure paths are judged below
		return nil, fmt.Errorf("artifact %q: not a readable zip: %w", name, err)
	}
	if len(zr.File) > lim.MaxFiles {
		return nil, fmt.Errorf("artifact %q: %d entries, more than %d: %w", name, len(zr.File), lim.MaxFiles, ErrTooLarge)
	}
	files, err := checkEntries(name, zr.File, lim)
	if err != nil {
		return nil, err
	}
	return feed(name, files, lim, b, sniffLen, keep, fn)
}

// fileEntry is a file of an artifact that passed the checks.
type fileEntry struct {
	name     string
	declared uint64 // the uncompressed size its header claims
	open     func() (io.ReadCloser, error)
}

// checkEntries checks every entry of a zip — names, kinds, encryption,
// compression, duplicates — and returns its files.
func checkEntries(name string, entries []*zip.File, lim Limits) ([]fileEntry, error) {
	var (
		files []fileEntry
		seen  = make(map[string]bool)   // file names
		dirs  = make(map[string]string) // parent directories of files → the file that implies it
	)
	for _, f := range entries {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("artifact %q: entry %q: "+format, append([]any{name, f.Name}, args...)...)
		}
		mode := f.Mode()
		isDir := mode.IsDir() || strings.HasSuffix(f.Name, "/")
		if isDir && (f.Name == "./" || f.Name == ".") {
			continue
		}
		clean, err := safeName(f.Name)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", fail("%v", err), ErrUnsafe)
		}
		if isDir {
			continue
		}
		if mode&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%w: %w", fail("is a symbolic link"), ErrUnsafe)
		}
		if !mode.IsRegular() {
			return nil, fmt.Errorf("%w: %w", fail("is not a regular file (mode %v)", mode), ErrUnsafe)
		}
		if f.Flags&0x1 != 0 {
			return nil, fmt.Errorf("%w: %w", fail("is encrypted"), ErrUnsafe)
		}
		if f.Method != zip.Store && f.Method != zip.Deflate {
			return nil, fmt.Errorf("%w: %w", fail("uses compression method %d; want stored (0) or deflate (8)", f.Method), ErrUnsafe)
		}
		if seen[clean] {
			return nil, fmt.Errorf("%w: %w", fail("appears twice"), ErrUnsafe)
		}
		if other, ok := dirs[clean]; ok {
			return nil, fmt.Errorf("%w: %w", fail("is a file but %q puts a directory there", other), ErrUnsafe)
		}
		for d := path.Dir(clean); d != "."; d = path.Dir(d) {
			if seen[d] {
				return nil, fmt.Errorf("%w: %w", fail("lies under %q, which is a file", d), ErrUnsafe)
			}
			dirs[d] = clean
		}
		seen[clean] = true
		files = append(files, fileEntry{name: clean, declared: f.UncompressedSize64, open: f.Open})
	}
	return files, nil
}

// feed sniffs each file and streams those keep accepts to fn, metered.
// Headers can lie: what comes out is counted, never taken from them.
func feed(name string, files []fileEntry, lim Limits, b *Budget, sniffLen int, keep func(string, []byte) bool, fn func(string, io.Reader) error) (skipped []string, err error) {
	head := make([]byte, max(sniffLen, 0))
	for _, f := range files {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("artifact %q: entry %q: "+format, append([]any{name, f.name}, args...)...)
		}
		rc, err := f.open()
		if err != nil {
			return nil, fail("open: %w", err)
		}
		// The first bytes are looked at, and charged only if kept.
		n, err := io.ReadFull(io.LimitReader(rc, lim.MaxFile+1), head)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			rc.Close()
			return nil, fail("read: %w", err)
		}
		if !keep(f.name, head[:n]) {
			rc.Close()
			skipped = append(skipped, f.name)
			continue
		}
		if f.declared > uint64(lim.MaxFile) {
			rc.Close()
			return nil, fmt.Errorf("%w: %w", fail("declares %d bytes, more than %s per file", f.declared, Size(lim.MaxFile)), ErrTooLarge)
		}
		m := &metered{r: rc, b: b, max: lim.MaxFile, budget: lim.Budget, artName: name, name: f.name}
		if m.charge(n) {
			rc.Close()
			return nil, m.over
		}
		err = fn(f.name, io.MultiReader(bytes.NewReader(head[:n]), m))
		rc.Close()
		if m.over != nil {
			return nil, m.over
		}
		if err != nil {
			return nil, err
		}
	}
	return skipped, nil
}

// countMagic counts the places r holds sig, streaming.
func countMagic(r io.Reader, sig []byte) (int64, error) {
	buf := make([]byte, 64<<10)
	var count int64
	keep := 0 // bytes carried over from the last read, at buf's start
	for {
		n, err := r.Read(buf[keep:])
		end := keep + n
		count += int64(bytes.Count(buf[:end], sig))
		// A signature cut at the end of the buffer is counted next time:
		// carry its possible start over (len(sig)-1 bytes never hold a
		// whole signature, so nothing is counted twice).
		keep = min(end, len(sig)-1)
		copy(buf, buf[end-keep:end])
		if errors.Is(err, io.EOF) {
			return count, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// safeName checks an entry name and returns it cleaned (no "./", no double
// slashes, no trailing slash). It refuses anything that is absolute, climbs
// out with "..", uses backslashes, names a drive or holds control bytes.
func safeName(name string) (string, error) {
	switch {
	case name == "":
		return "", errors.New("empty name")
	case !utf8.ValidString(name):
		return "", errors.New("name is not UTF-8")
	case strings.ContainsAny(name, "\\"):
		return "", errors.New("backslash in the name (a Windows separator)")
	case strings.HasPrefix(name, "/"):
		return "", errors.New("absolute path")
	case len(name) >= 2 && name[1] == ':':
		// Windows reads any "X:" as a volume, not only a letter.
		return "", errors.New("drive letter")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return "", errors.New("control character in the name")
		}
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", errors.New("\"..\" in the path")
		}
	}
	clean := path.Clean(name)
	if clean == "." || clean == "/" {
		return "", errors.New("names no file")
	}
	return clean, nil
}
