package pushfix

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// encodeBase85Lines writes data as the lines of a binary fragment, as Git
// does: at most 52 bytes a line, a length byte, groups of five characters.
func encodeBase85Lines(data []byte) string {
	var b strings.Builder
	for len(data) > 0 {
		n := min(len(data), 52)
		line := data[:n]
		data = data[n:]
		if n <= 26 {
			b.WriteByte(byte('A' + n - 1))
		} else {
			b.WriteByte(byte('a' + n - 27))
		}
		for g := 0; g < n; g += 4 {
			var v uint32
			for j := 0; j < 4; j++ {
				v <<= 8
				if g+j < n {
					v |= uint32(line[g+j])
				}
			}
			var enc [5]byte
			for k := 4; k >= 0; k-- {
				enc[k] = base85[v%85]
				v /= 85
			}
			b.Write(enc[:])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func deflateZ(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// binaryPatch is a patch adding name as a binary literal that declares
// size bytes and carries z (a zlib stream).
func binaryPatch(name string, size int64, z []byte) string {
	return fmt.Sprintf("diff --git a/%s b/%s\nnew file mode 100644\nGIT binary patch\nliteral %d\n%s\nliteral 0\nHcmV?d00001\n\n", name, name, size, encodeBase85Lines(z))
}

func TestCheckBinaryDecodesAsTheParserDoes(t *testing.T) {
	t.Parallel()
	// Every byte value, and lengths that leave 1, 2 and 3 bytes of padding.
	for _, n := range []int{1, 2, 3, 4, 5, 51, 52, 53, 256, 1000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		z := deflateZ(t, data)
		lines := encodeBase85Lines(z)
		var raw []byte
		for _, l := range strings.SplitAfter(lines, "\n") {
			if l == "" {
				continue
			}
			if raw = appendBase85Line(raw, []byte(l)); raw == nil {
				t.Fatalf("%d bytes: line %q refused", n, l)
			}
		}
		if !bytes.Equal(raw, z) {
			t.Fatalf("%d bytes: decoded %x, want %x", n, raw, z)
		}
		files, _, err := gitdiff.Parse(strings.NewReader(binaryPatch("x.bin", int64(n), z)))
		if err != nil || len(files) != 1 || !bytes.Equal(files[0].BinaryFragment.Data, data) {
			t.Fatalf("%d bytes: the parser read %v, %v", n, files, err)
		}
	}
}

func TestReadPatchRefusesBinaryBombs(t *testing.T) {
	t.Parallel()
	bomb := deflateZ(t, make([]byte, 8<<20)) // 8 MiB of zeros in a few KiB
	tests := []struct {
		name  string
		patch string
		lim   PatchLimits
		say   string
	}{
		{"inflates past its declared size", binaryPatch("x.bin", 10, bomb), PatchLimits{}, "line 4: a binary fragment declared as 10 bytes inflates to more"},
		{"a negative size", binaryPatch("x.bin", -1, bomb), PatchLimits{}, "line 4: a binary fragment of -1 bytes"},
		{"over GitHub's file limit", binaryPatch("x.bin", MaxFileSize+1, bomb), PatchLimits{}, "over GitHub's"},
		{"together over the limit", binaryPatch("a.bin", 8<<20, bomb) + binaryPatch("b.bin", 8<<20, bomb), PatchLimits{MaxBinary: 12 << 20}, "inflate to more than 12582912 bytes together"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadPatch("gcloop-changes.patch", strings.NewReader(tt.patch), tt.lim)
			if !errors.Is(err, ErrPatch) || !strings.Contains(err.Error(), tt.say) {
				t.Fatalf("error %v, want ErrPatch saying %q", err, tt.say)
			}
		})
	}
	// Within the limits the same fragment is read.
	p, err := ReadPatch("gcloop-changes.patch", strings.NewReader(binaryPatch("x.bin", 8<<20, bomb)), PatchLimits{})
	if err != nil || len(p.Files[0].BinaryFragment.Data) != 8<<20 {
		t.Fatalf("an honest 8 MiB literal: %v", err)
	}
}

func TestApplyCapsWhatABinaryDeltaWrites(t *testing.T) {
	t.Parallel()
	src := []byte("0123456789")
	// A delta that copies the old file twice: the header's sizes, then
	// two copy ops (0x90: one size byte follows, offset 0).
	delta := []byte{byte(len(src)), byte(2 * len(src)), 0x90, byte(len(src)), 0x90, byte(len(src))}
	patch := fmt.Sprintf("diff --git a/x.bin b/x.bin\nGIT binary patch\ndelta %d\n%s\n", len(delta), encodeBase85Lines(deflateZ(t, delta)))
	p, err := ReadPatch("gcloop-changes.patch", strings.NewReader(patch), PatchLimits{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := apply(p.Files[0], src, 100)
	if err != nil || string(out) != string(src)+string(src) {
		t.Fatalf("apply = %q, %v; want the old file twice", out, err)
	}
	if _, err := apply(p.Files[0], src, 15); !errors.Is(err, ErrPatch) || !strings.Contains(err.Error(), "more than 15 bytes") {
		t.Fatalf("apply capped at 15 bytes: %v, want ErrPatch", err)
	}
}
