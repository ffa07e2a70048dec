package coverage

import (
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// genReader yields head, then n bytes of fill, then tail, generating the
// input as it is read (a 300 MB report is never held).
type genReader struct {
	head, tail string
	fill       byte
	n          int64
}

func (g *genReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		switch {
		case g.head != "":
			k := copy(p[w:], g.head)
			g.head, w = g.head[k:], w+k
		case g.n > 0:
			k := min(int64(len(p)-w), g.n)
			for i := range k {
				p[w+int(i)] = g.fill
			}
			g.n, w = g.n-k, w+int(k)
		case g.tail != "":
			k := copy(p[w:], g.tail)
			g.tail, w = g.tail[k:], w+k
		default:
			if w == 0 {
				return 0, io.EOF
			}
			return w, nil
		}
	}
	return w, nil
}

// filesReader yields a report of n distinct files, each one line long.
type filesReader struct {
	head, tail string
	file       func(i int) string
	i, n       int
	buf        string
}

func (f *filesReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		if f.buf == "" {
			switch {
			case f.head != "":
				f.buf, f.head = f.head, ""
			case f.i < f.n:
				f.buf = f.file(f.i)
				f.i++
			case f.tail != "":
				f.buf, f.tail = f.tail, ""
			default:
				if w == 0 {
					return 0, io.EOF
				}
				return w, nil
			}
		}
		k := copy(p[w:], f.buf)
		f.buf, w = f.buf[k:], w+k
	}
	return w, nil
}

// allocated returns the bytes allocated while read ran.
func allocated(read func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Memory is bounded by caps, not by the input (DESIGN §10). These tests
// are not parallel: the allocation count is process-wide.
func TestReadersBoundMemory(t *testing.T) {
	tests := []struct {
		name  string
		read  func() error
		want  string
		limit uint64
	}{
		{
			name: "a 300 MB Cobertura attribute",
			read: func() error {
				_, err := ReadCobertura("big.xml", &genReader{head: `<coverage><packages><package><classes><class filename="`, fill: 'a', n: 300 << 20, tail: `"/></classes></package></packages></coverage>`})
				return err
			},
			want:  "big.xml:1: refused XML: XML token longer than 1 MiB",
			limit: 32 << 20,
		},
		{
			name: "a 300 MB JaCoCo token",
			read: func() error {
				_, err := ReadJaCoCo("big.xml", &genReader{head: `<report><package name="p">`, fill: 'x', n: 300 << 20, tail: `</package></report>`})
				return err
			},
			want:  "big.xml:1: refused XML: XML token longer than 1 MiB",
			limit: 32 << 20,
		},
		{
			name: "a 300 MB Clover attribute",
			read: func() error {
				_, err := ReadClover("big.xml", &genReader{head: `<coverage clover="1"><project><file path="`, fill: 'a', n: 300 << 20, tail: `"/></project></coverage>`})
				return err
			},
			want:  "big.xml:1: refused XML: XML token longer than 1 MiB",
			limit: 32 << 20,
		},
		{
			name: "an LCOV file past MaxFiles distinct files",
			read: func() error {
				_, err := ReadLCOV("big.info", &filesReader{n: MaxFiles + 10, file: func(i int) string {
					return "SF:f" + strings.Repeat("x", 64) + strconv.Itoa(i) + "\nend_of_record\n"
				}})
				return err
			},
			want:  "big.info:500002: more than 250000 distinct source files",
			limit: 256 << 20,
		},
		{
			name: "a Go profile past MaxFiles distinct files",
			read: func() error {
				_, err := ReadGoProfile("big.out", &filesReader{head: "mode: set\n", n: MaxFiles + 10, file: func(i int) string {
					return "example.com/m/f" + strconv.Itoa(i) + ".go:1.1,2.2 1 1\n"
				}})
				return err
			},
			want:  "big.out:250002: more than 250000 distinct source files",
			limit: 256 << 20,
		},
		{
			name: "a JaCoCo report past MaxFiles source files",
			read: func() error {
				_, err := ReadJaCoCo("big.xml", &filesReader{head: `<report><package name="p">`, n: MaxFiles + 10, tail: `</package></report>`, file: func(i int) string {
					return `<sourcefile name="F` + strconv.Itoa(i) + `.java"><counter type="LINE" missed="1" covered="1"/></sourcefile>` + "\n"
				}})
				return err
			},
			want:  "big.xml:250001: more than 250000 distinct source files",
			limit: 512 << 20,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { err = tt.read() })
			checkParseError(t, err, tt.want)
			t.Logf("allocated %d KiB", n>>10)
			if n > tt.limit {
				t.Errorf("allocated %d MiB, want at most %d MiB", n>>20, tt.limit>>20)
			}
		})
	}
}
