package artifact

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// entry is one member of a zip built by a test.
type entry struct {
	name string
	data string
	mode fs.FileMode // 0: a regular 0644 file (or a directory if name ends in /)
	// raw entries are written with CreateRaw: the header fields below are
	// taken as given, so they can lie.
	raw        bool
	method     uint16
	flags      uint16
	declared   uint64 // UncompressedSize64 claimed by the header
	compressed []byte
}

func buildZip(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.raw {
			h := &zip.FileHeader{Name: e.name, Method: e.method, Flags: e.flags,
				UncompressedSize64: e.declared, CompressedSize64: uint64(len(e.compressed))}
			w, err := zw.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(e.compressed); err != nil {
				t.Fatal(err)
			}
			continue
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		switch {
		case e.mode != 0:
			h.SetMode(e.mode)
		case strings.HasSuffix(e.name, "/"):
			h.SetMode(fs.ModeDir | 0o755)
		default:
			h.SetMode(0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deflate(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestCompression)
	fw.Write(data)
	fw.Close()
	return buf.Bytes()
}

// File is one file of an artifact as a test reads it whole.
type File struct {
	Name string
	Data []byte
}

// unpackAll unpacks every file of an artifact held in data, keeping all.
func unpackAll(name string, data []byte, lim Limits) ([]File, error) {
	var files []File
	_, err := Unpack(name, bytes.NewReader(data), int64(len(data)), lim, &Budget{}, 512, func([]byte) bool { return true },
		func(file string, r io.Reader) error {
			b, err := io.ReadAll(r)
			if err != nil {
				return err
			}
			files = append(files, File{Name: file, Data: b})
			return nil
		})
	return files, err
}

func TestExtract(t *testing.T) {
	t.Parallel()
	zeros := make([]byte, 1<<20)
	bomb := deflate(t, zeros)
	small := Limits{MaxFile: 64 << 10, Budget: 100 << 10}
	tests := []struct {
		name    string
		data    []byte
		lim     Limits
		want    []File
		wantErr error  // errors.Is target; nil means success
		entry   string // the entry the error must name
	}{
		{name: "a zip of two files is unpacked in order",
			data: buildZip(t, entry{name: "review.json", data: `{"score":8}`}, entry{name: "sub/cov.out", data: "mode: set\n"}),
			want: []File{{Name: "review.json", Data: []byte(`{"score":8}`)}, {Name: "sub/cov.out", Data: []byte("mode: set\n")}}},
		{name: "directory entries are skipped and nested files kept",
			data: buildZip(t, entry{name: "a/"}, entry{name: "a/b/"}, entry{name: "a/b/c.txt", data: "c"}),
			want: []File{{Name: "a/b/c.txt", Data: []byte("c")}}},
		{name: "a leading ./ is cleaned away",
			data: buildZip(t, entry{name: "./"}, entry{name: "./x/./y.txt", data: "y"}),
			want: []File{{Name: "x/y.txt", Data: []byte("y")}}},
		{name: "an empty file is kept",
			data: buildZip(t, entry{name: "empty", data: ""}),
			want: []File{{Name: "empty", Data: []byte{}}}},
		{name: "an empty zip holds no files",
			data: buildZip(t),
			want: nil},
		{name: "a stored (uncompressed) entry is read",
			data: buildZip(t, entry{name: "s.txt", raw: true, method: zip.Store, declared: 3, compressed: []byte("abc")}),
			want: []File{{Name: "s.txt", Data: []byte("abc")}}},
		{name: "an entry climbing out with .. is refused",
			data: buildZip(t, entry{name: "ok.txt", data: "x"}, entry{name: "../evil", data: "x"}), wantErr: ErrUnsafe, entry: "../evil"},
		{name: "a .. in the middle is refused even when it would stay inside",
			data: buildZip(t, entry{name: "a/../b", data: "x"}), wantErr: ErrUnsafe, entry: "a/../b"},
		{name: "a directory entry climbing out is refused",
			data: buildZip(t, entry{name: "../up/"}), wantErr: ErrUnsafe, entry: "../up/"},
		{name: "an absolute path is refused",
			data: buildZip(t, entry{name: "/abs", data: "x"}), wantErr: ErrUnsafe, entry: "/abs"},
		{name: "backslash separators are refused",
			data: buildZip(t, entry{name: `a\..\b`, data: "x"}), wantErr: ErrUnsafe, entry: `a\\..\\b`},
		{name: "a drive letter is refused",
			data: buildZip(t, entry{name: "C:/windows/x", data: "x"}), wantErr: ErrUnsafe, entry: "C:/windows/x"},
		{name: "a volume name that is not a letter is refused too",
			data: buildZip(t, entry{name: "0:/x", data: "x"}), wantErr: ErrUnsafe, entry: "0:/x"},
		{name: "a control character in a name is refused",
			data: buildZip(t, entry{name: "a\nb", data: "x"}), wantErr: ErrUnsafe, entry: `a\nb`},
		{name: "a symbolic link is refused",
			data: buildZip(t, entry{name: "link", data: "/etc/passwd", mode: fs.ModeSymlink | 0o777}), wantErr: ErrUnsafe, entry: "link"},
		{name: "a named pipe is refused",
			data: buildZip(t, entry{name: "fifo", mode: fs.ModeNamedPipe | 0o644}), wantErr: ErrUnsafe, entry: "fifo"},
		{name: "a name that appears twice is refused",
			data: buildZip(t, entry{name: "r.json", data: "1"}, entry{name: "./r.json", data: "2"}), wantErr: ErrUnsafe, entry: "./r.json"},
		{name: "a file under another file is refused",
			data: buildZip(t, entry{name: "a", data: "1"}, entry{name: "a/b", data: "2"}), wantErr: ErrUnsafe, entry: "a/b"},
		{name: "a file where another file put a directory is refused",
			data: buildZip(t, entry{name: "a/b", data: "1"}, entry{name: "a", data: "2"}), wantErr: ErrUnsafe, entry: "a"},
		{name: "an encrypted entry is refused",
			data: buildZip(t, entry{name: "secret", raw: true, method: zip.Store, flags: 0x1, declared: 3, compressed: []byte("abc")}), wantErr: ErrUnsafe, entry: "secret"},
		{name: "an unknown compression method is refused",
			data: buildZip(t, entry{name: "lzma", raw: true, method: 14, declared: 3, compressed: []byte("abc")}), wantErr: ErrUnsafe, entry: "lzma"},
		{name: "more entries than MaxFiles are refused",
			data: buildZip(t, entry{name: "1"}, entry{name: "2"}, entry{name: "3/"}, entry{name: "4"}),
			lim:  Limits{MaxFiles: 3}, wantErr: ErrTooLarge},
		{name: "a megabyte of zeros is refused by its declared size",
			data: buildZip(t, entry{name: "bomb", data: string(zeros)}), lim: small, wantErr: ErrTooLarge, entry: "bomb"},
		{name: "a megabyte of zeros declared as 64 KiB is cut off where its header says it ends",
			data: buildZip(t, entry{name: "liar", raw: true, method: zip.Deflate, declared: 64 << 10, compressed: bomb}), lim: small, wantErr: zip.ErrFormat, entry: "liar"},
		{name: "a megabyte of zeros declared as 32 KiB after 80 KiB of files passes Budget and is cut off",
			data: buildZip(t, entry{name: "a", data: strings.Repeat("a", 40<<10)}, entry{name: "b", data: strings.Repeat("b", 40<<10)},
				entry{name: "liar", raw: true, method: zip.Deflate, declared: 32 << 10, compressed: bomb}), lim: small, wantErr: ErrTooLarge, entry: "liar"},
		{name: "a megabyte of zeros declared as 10 bytes fails to read",
			data: buildZip(t, entry{name: "liar", raw: true, method: zip.Deflate, declared: 10, compressed: bomb}), lim: small, wantErr: zip.ErrFormat, entry: "liar"},
		{name: "files that together pass Budget are refused",
			data: buildZip(t, entry{name: "a", data: strings.Repeat("a", 40<<10)}, entry{name: "b", data: strings.Repeat("b", 40<<10)}, entry{name: "c", data: strings.Repeat("c", 40<<10)}),
			lim:  small, wantErr: ErrTooLarge, entry: "c"},
		{name: "a zip larger than MaxZip is refused",
			data: buildZip(t, entry{name: "a", data: "abc"}), lim: Limits{MaxZip: 20}, wantErr: ErrTooLarge},
		{name: "bytes that start like a zip but are not one are an error",
			data: []byte("PK\x03\x04 not really"), wantErr: zip.ErrFormat},
		{name: "a file that is not a zip is an unzipped artifact named after it",
			data: []byte(`{"findings":[]}`),
			want: []File{{Name: "gcloop-art", Data: []byte(`{"findings":[]}`)}}},
		{name: "an unzipped artifact over MaxFile is refused",
			data: []byte(strings.Repeat("x", 100)), lim: Limits{MaxFile: 99}, wantErr: ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := unpackAll("gcloop-art", tc.data, tc.lim)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Extract: %v", err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("files (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Extract error = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), `artifact "gcloop-art"`) {
				t.Errorf("error %q does not name the artifact", err)
			}
			if tc.entry != "" && !strings.Contains(err.Error(), `entry "`+tc.entry+`"`) {
				t.Errorf("error %q does not name entry %q", err, tc.entry)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

func TestExtractUnzippedArtifactNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		want    string
		wantErr bool
	}{
		{name: "coverage.out", want: "coverage.out"},
		{name: "../etc/passwd", wantErr: true},
		{name: "/etc/passwd", wantErr: true},
		{name: `..\x`, wantErr: true},
		{name: "", wantErr: true},
		{name: ".", wantErr: true},
	}
	for _, tc := range tests {
		t.Run("artifact named "+tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := unpackAll(tc.name, []byte("data"), Limits{})
			if tc.wantErr {
				if !errors.Is(err, ErrUnsafe) {
					t.Fatalf("err = %v, want ErrUnsafe", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]File{{Name: tc.want, Data: []byte("data")}}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractChecksCRC(t *testing.T) {
	t.Parallel()
	data := []byte("hello")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateRaw(&zip.FileHeader{Name: "h", Method: zip.Store, CRC32: crc32.ChecksumIEEE(data) + 1,
		UncompressedSize64: 5, CompressedSize64: 5})
	w.Write(data)
	zw.Close()
	if _, err := unpackAll("crc", buf.Bytes(), Limits{}); !errors.Is(err, zip.ErrChecksum) {
		t.Errorf("err = %v, want zip.ErrChecksum", err)
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("art", buildZip(f, entry{name: "a.txt", data: "a"}, entry{name: "d/"}, entry{name: "d/b.json", data: "{}"}))
	f.Add("art", buildZip(f, entry{name: "../evil", data: "x"}))
	f.Add("art", buildZip(f, entry{name: "link", data: "/", mode: fs.ModeSymlink | 0o777}))
	f.Add("art", buildZip(f, entry{name: "liar", raw: true, method: zip.Deflate, declared: 10, compressed: deflate(f, make([]byte, 4096))}))
	f.Add("art", buildZip(f))
	f.Add("report.json", []byte(`{"x":1}`))
	f.Add("../x", []byte("plain"))
	f.Add("art", []byte("PK\x05\x06"))
	lim := Limits{MaxZip: 1 << 20, MaxFiles: 50, MaxFile: 64 << 10, Budget: 128 << 10}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		files, err := unpackAll(name, data, lim)
		if err != nil {
			return
		}
		var total int64
		seen := map[string]bool{}
		for _, fl := range files {
			n := fl.Name
			if n == "" || strings.HasPrefix(n, "/") || strings.Contains(n, `\`) || path.Clean(n) != n ||
				n == ".." || strings.HasPrefix(n, "../") || (len(n) >= 2 && n[1] == ':') {
				t.Fatalf("unsafe name %q", n)
			}
			// Written under a directory, the file stays inside it.
			if root := "/artifact"; !filepath.IsLocal(n) || !strings.HasPrefix(filepath.Join(root, n), root+"/") {
				t.Fatalf("name %q leaves the directory it is written to", n)
			}
			if seen[n] {
				t.Fatalf("duplicate name %q", n)
			}
			seen[n] = true
			if int64(len(fl.Data)) > lim.MaxFile {
				t.Fatalf("file %q has %d bytes, over MaxFile", n, len(fl.Data))
			}
			total += int64(len(fl.Data))
		}
		if total > lim.Budget || len(files) > lim.MaxFiles {
			t.Fatalf("%d files, %d bytes: over the limits", len(files), total)
		}
	})
}
