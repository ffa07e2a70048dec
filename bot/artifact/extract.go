// Package artifact lists, downloads and unpacks GitHub Actions artifacts.
// Every byte of an artifact is treated as hostile (it may come from a fork's
// run): sizes, entry counts and paths are checked before anything is used, and
// decompressed sizes are counted, never taken from headers.
package artifact

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"
)

// Limits bound what one artifact may cost. Zero fields take the defaults.
type Limits struct {
	MaxZip   int64 // compressed bytes downloaded; default 512 MiB
	MaxFiles int   // entries in the zip (directories included); default 10 000
	MaxFile  int64 // uncompressed bytes of one file; default 256 MiB
	MaxTotal int64 // uncompressed bytes of all files; default 1 GiB
}

// The default Limits.
const (
	DefaultMaxZip   = 512 << 20
	DefaultMaxFiles = 10000
	DefaultMaxFile  = 256 << 20
	DefaultMaxTotal = 1 << 30
)

func (l Limits) withDefaults() Limits {
	if l.MaxZip <= 0 {
		l.MaxZip = DefaultMaxZip
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxFile <= 0 {
		l.MaxFile = DefaultMaxFile
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultMaxTotal
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

// File is one file of an artifact. Name is a clean, relative, slash-separated
// path that stays inside the artifact.
type File struct {
	Name string
	Data []byte
}

var (
	zipMagic      = []byte("PK\x03\x04")
	emptyZipMagic = []byte("PK\x05\x06")
)

// IsZip reports whether data starts like a zip archive (a local file header,
// or the end-of-directory record of an empty archive).
func IsZip(data []byte) bool {
	return bytes.HasPrefix(data, zipMagic) || bytes.HasPrefix(data, emptyZipMagic)
}

// Extract returns the files of the artifact called name. A zip is unpacked
// with every entry checked; anything else is an unzipped single-file artifact
// (uploaded with archive: false) whose one file is called name. Directories
// are skipped. Errors name the artifact and the entry.
func Extract(name string, data []byte, lim Limits) ([]File, error) {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.MaxZip {
		return nil, fmt.Errorf("artifact %q: %d bytes, more than %d: %w", name, len(data), lim.MaxZip, ErrTooLarge)
	}
	if !IsZip(data) {
		clean, err := safeName(name)
		if err != nil {
			return nil, fmt.Errorf("artifact %q: unzipped artifact name: %v: %w", name, err, ErrUnsafe)
		}
		if int64(len(data)) > lim.MaxFile {
			return nil, fmt.Errorf("artifact %q: %d bytes, more than %d per file: %w", name, len(data), lim.MaxFile, ErrTooLarge)
		}
		if int64(len(data)) > lim.MaxTotal {
			return nil, fmt.Errorf("artifact %q: %d bytes, more than %d in total: %w", name, len(data), lim.MaxTotal, ErrTooLarge)
		}
		return []File{{Name: clean, Data: data}}, nil
	}

	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // insecure paths are judged below
		return nil, fmt.Errorf("artifact %q: not a readable zip: %w", name, err)
	}
	if len(zr.File) > lim.MaxFiles {
		return nil, fmt.Errorf("artifact %q: %d entries, more than %d: %w", name, len(zr.File), lim.MaxFiles, ErrTooLarge)
	}

	var (
		files []File
		total int64
		seen  = make(map[string]bool)   // file names
		dirs  = make(map[string]string) // parent directories of files → the file that implies it
	)
	for _, f := range zr.File {
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
		if f.UncompressedSize64 > uint64(lim.MaxFile) {
			return nil, fmt.Errorf("%w: %w", fail("declares %d bytes, more than %d per file", f.UncompressedSize64, lim.MaxFile), ErrTooLarge)
		}

		// Count what actually comes out: headers can lie.
		budget := min(lim.MaxFile, lim.MaxTotal-total)
		rc, err := f.Open()
		if err != nil {
			return nil, fail("open: %w", err)
		}
		var buf bytes.Buffer
		buf.Grow(int(min(f.UncompressedSize64, uint64(budget), 1<<20)))
		n, err := io.Copy(&buf, io.LimitReader(rc, budget+1))
		rc.Close()
		if n > budget {
			if budget < lim.MaxFile {
				return nil, fmt.Errorf("%w: %w", fail("takes the artifact past %d uncompressed bytes in total", lim.MaxTotal), ErrTooLarge)
			}
			return nil, fmt.Errorf("%w: %w", fail("decompresses to more than %d bytes", lim.MaxFile), ErrTooLarge)
		}
		if err != nil {
			return nil, fail("read: %w", err)
		}
		total += n
		files = append(files, File{Name: clean, Data: buf.Bytes()})
	}
	return files, nil
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
