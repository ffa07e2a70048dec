package jsonscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gcloop/gcloop/internal/parse"
)

// elemsCareful reads doc, a document that is one array, element by element
// with the stream scanner: where each element lies, and the error.
func elemsCareful(doc []byte, bufSize int) ([][2]int64, error) {
	s := New("d.json", bytes.NewReader(doc), bufSize)
	var out [][2]int64
	err := s.OpenArray("", "doc")
	if err == nil {
		err = s.ArrayFrom(0, true, elemFn(s, &out))
	}
	if err == nil {
		err = s.EndDoc("document")
	}
	return out, err
}

func elemFn(s *Scanner, out *[][2]int64) func(int) error {
	return func(int) error {
		at := s.Off()
		if err := s.Skip(1); err != nil {
			return err
		}
		*out = append(*out, [2]int64{at, s.Off()})
		return nil
	}
}

// elemsSplit reads doc as a reader on several cores does, one part after
// the other: the array's bytes are handed out raw, cut into parts of at
// least part bytes where an element seems to start (ElemPrefix,
// ElemStart), each part is read by a Span scanner from its start
// (ElemSep, Skip), and the stream scanner reads on from the first element
// a part could not read (Rewind, ArrayFrom), or after the ']'.
func elemsSplit(doc []byte, bufSize, part int) (out [][2]int64, rewound bool, err error) {
	s := New("d.json", bytes.NewReader(doc), bufSize)
	if err := s.OpenArray("", "doc"); err != nil {
		return nil, false, err
	}
	base := s.Off()
	data, _ := s.ReadRaw(nil, 1<<30) // small inputs: all of them
	careful := func(from, i int) error {
		rewound = true
		s.Rewind([][]byte{data[from:]}, base+int64(from))
		err := s.ArrayFrom(i, i == 0, elemFn(s, &out))
		if err == nil {
			err = s.EndDoc("document")
		}
		return err
	}
	prefix, ok := ElemPrefix(data)
	if !ok {
		return out, true, careful(0, 0)
	}
	cuts := []int{0}
	for at := part; ; {
		j := ElemStart(data, prefix, at)
		if j <= cuts[len(cuts)-1] {
			break
		}
		cuts = append(cuts, j)
		at = j + part
	}
	cuts = append(cuts, len(data))
	i, lastEnd := 0, 0
parts:
	for k := 0; k+1 < len(cuts); k++ {
		end := cuts[k+1]
		sp := Span("d.json", data[cuts[k]:end], base+int64(cuts[k]))
		for n := 0; ; n++ {
			pre := -1
			if n > 0 || k == 0 {
				pre = end - sp.Rest()
				switch sp.ElemSep(n == 0) {
				case SepElem:
				case SepClose:
					at := end - sp.Rest()
					s.Rewind([][]byte{data[at:]}, base+int64(at))
					return out, rewound, s.EndDoc("document")
				case SepSpanEnd:
					if k+2 < len(cuts) {
						continue parts
					}
					return out, true, careful(pre, i)
				default:
					return out, true, careful(pre, i)
				}
			}
			at := sp.Off()
			if err := sp.Skip(1); err != nil {
				if pre < 0 {
					pre = lastEnd
				}
				return out, true, careful(pre, i)
			}
			out = append(out, [2]int64{at, sp.Off()})
			i++
			lastEnd = end - sp.Rest()
		}
	}
	return out, true, fmt.Errorf("the parts ended without an end")
}

// checkSplitAlike fails when reading doc's elements in parts differs from
// reading them with the stream scanner, in where the elements lie or in
// the error; plain says doc is an array read in parts throughout (no
// element goes back to the stream scanner when parts are small).
func checkSplitAlike(t *testing.T, doc []byte, plain bool) {
	t.Helper()
	for _, bufSize := range []int{16, 17, 64, 4096} {
		want, wantErr := elemsCareful(doc, bufSize)
		for _, part := range []int{1, 7, 100, 1 << 20} {
			got, rewound, err := elemsSplit(doc, bufSize, part)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("buffer %d, part %d: error\n%v\nwant\n%v", bufSize, part, err, wantErr)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("buffer %d, part %d: elements\n%v\nwant\n%v", bufSize, part, got, want)
			}
			if plain && rewound {
				t.Fatalf("buffer %d, part %d: a plain array was read again by the stream scanner", bufSize, part)
			}
		}
	}
}

var splitCases = []struct {
	doc   string
	plain bool
}{
	{`[]`, false},
	{` [ ] `, false},
	{`[{}]`, false},
	{`[{"a":1},{"a":[1,2,{"c":"]}"}]}, {"a":"\"},{\"a\":\\"} ,{"a":"\u00e9\ud83d\ude00 é"}]`, true},
	{"[\n  {\"a\": \"x\"},\n  {\"a\": \"y\"}\n]\n", true},
	{`[{"a":"` + strings.Repeat("x", 200) + `"},{"a":"` + strings.Repeat(`\\`, 40) + `"}]`, true},
	{`[{"a":1},{"a":2},{"b":3},{"a":4}]`, true},
	{`[{"a":[{"a":1},{"a":2}]},{"a":3}]`, false},
	{`[{"a":"x},{\"a\":1"},{"a":3}]`, false},
	{`[{"a":1},2]`, false},
	{`[{"a":1},]`, false},
	{`[{"a":1},,{"a":2}]`, false},
	{`[{"a":1} {"a":2}]`, false},
	{`[{"a":1}}`, false},
	{`[{"a":"b}]`, false},
	{`[{"a":"b\`, false},
	{`[{"a":1},`, false},
	{`[{"a":1}, `, false},
	{`[{"a":1}`, false},
	{`[{"a":`, false},
	{"[{\"a\":\"b\x01\"},{\"a\":2}]", false},
	{`[{"a":1]},{"a":2}]`, false},
	{`[{"a" 1},{"a":2}]`, false},
	{`[{"a":1},{"a":tru}]`, false},
	{`[{"a":1},{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `},{"a":2}]`, false},
	{`[{"a":1},{"a":1` + strings.Repeat("0", 1100) + `},{"a":2}]`, false},
	{`[{"a":1},{"a":2}] x`, false},
	{`[{"a":1},{"a":2}],{"a":3}`, false},
	{`{"a":1}`, false},
	{`[{"a":"\x"},{"a":2}]`, false},
	{`[{"a":"\ud800"},{"a":"\uDC00\u12"}]`, false},
	{`[{"a\"b":1},{"a\"b":2}]`, false},
}

func TestReadInPartsAsTheStreamScanner(t *testing.T) {
	t.Parallel()
	for _, c := range splitCases {
		checkSplitAlike(t, []byte(c.doc), c.plain)
	}
}

// TestRewindKeepsReadErrors: after a rewind, a failing reader fails where
// it did, with the same error.
func TestRewindKeepsReadErrors(t *testing.T) {
	t.Parallel()
	doc := `[{"a":1},{"b":"` + strings.Repeat("y", 100) + `"},{"c":3}]`
	for cut := 1; cut < len(doc); cut += 7 {
		r := func() *failAfter { return &failAfter{b: []byte(doc[:cut])} }
		s := New("d.json", r(), 16)
		var want [][2]int64
		err := s.OpenArray("", "doc")
		if err == nil {
			err = s.ArrayFrom(0, true, elemFn(s, &want))
		}
		s = New("d.json", r(), 16)
		var got [][2]int64
		gerr := s.OpenArray("", "doc")
		if gerr == nil {
			base := s.Off()
			data, _ := s.ReadRaw(nil, 1<<20)
			s.Rewind([][]byte{data[:len(data)/2], data[len(data)/2:]}, base)
			gerr = s.ArrayFrom(0, true, elemFn(s, &got))
		}
		if fmt.Sprint(gerr) != fmt.Sprint(err) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("cut at %d: %v %v, want %v %v", cut, got, gerr, want, err)
		}
	}
}

// failAfter returns its bytes three at a time, then fails.
type failAfter struct{ b []byte }

func (f *failAfter) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, fmt.Errorf("disk on fire")
	}
	n := copy(p[:min(len(p), 3)], f.b)
	f.b = f.b[n:]
	return n, nil
}

// FuzzReadInParts: reading an array's elements in parts, each read by a
// Span scanner and read again by the stream scanner from the first element
// a part could not read, finds the elements and the error that the stream
// scanner alone does.
func FuzzReadInParts(f *testing.F) {
	for _, c := range splitCases {
		f.Add([]byte(c.doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkSplitAlike(t, doc, false)
	})
}

// benchResults is an array of 100 000 objects shaped like a linter's
// SARIF results (about 270 bytes each).
func benchResults() []byte {
	var doc bytes.Buffer
	doc.WriteByte('[')
	for i := range 100000 {
		if i > 0 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, `{"ruleId":"L%03d","level":"warning","message":{"text":"value %d of parameter is never used after the assignment in this function"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"internal/pkg%02d/file%04d.go"},"region":{"startLine":%d,"startColumn":%d}}}]}`,
			i%200, i, i%60, i%1200, 1+i%2000, 1+i%40)
	}
	doc.WriteByte(']')
	return doc.Bytes()
}

// BenchmarkSkipElems skips benchResults' objects with the stream scanner
// (its strings, keys and numbers: the scanner's hot paths).
func BenchmarkSkipElems(b *testing.B) {
	doc := benchResults()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		s := New("b.json", bytes.NewReader(doc), 64<<10)
		if err := s.Skip(0); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzSmallInt: smallInt reads what strconv.ParseInt reads, when it reads.
func FuzzSmallInt(f *testing.F) {
	for _, s := range []string{"0", "7", "000000001", "123456789", "999999999", "1234567890", "-1", "1e3", "", "12a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := smallInt([]byte(s))
		if !ok {
			return
		}
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil || int(v) != n {
			t.Fatalf("smallInt(%q) = %d, ParseInt %d, %v", s, n, v, err)
		}
	})
}

// ReadRaw hands out the input as it is, whether its bytes come through the
// buffer or, with nothing buffered and a large n, straight from the
// reader; offsets run on across both, and a failed read is reported at
// the offset where it failed.
func TestReadRawAcrossTheBuffer(t *testing.T) {
	t.Parallel()
	doc := []byte(strings.Repeat(`{"ruleId":"R1"},`, 40)) // 640 bytes
	readers := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(doc) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(doc)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(doc)) },
		"data+EOF": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(doc)) },
	}
	for name, r := range readers {
		for _, steps := range [][]int{{1, 640}, {17, 16, 100, 3, 600}, {640}, {5, 5, 5, 700}} {
			s := New("d.json", r(), 16)
			var got []byte
			var err error
			for _, n := range steps {
				if got, err = s.ReadRaw(got, n); err != nil {
					break
				}
				if s.Off() != int64(len(got)) {
					t.Fatalf("%s %v: offset %d after %d bytes", name, steps, s.Off(), len(got))
				}
			}
			if !bytes.Equal(got, doc) {
				t.Errorf("%s %v: read %q, want the input", name, steps, got)
			}
			if err != io.EOF && err != nil {
				t.Errorf("%s %v: error %v, want io.EOF or none", name, steps, err)
			}
		}
	}
	s := New("d.json", &failAfter{b: doc[:100]}, 16)
	got, err := s.ReadRaw(nil, 640)
	var pe *parse.Error
	if !bytes.Equal(got, doc[:100]) || !errors.As(err, &pe) || pe.Offset != 100 {
		t.Errorf("failing reader: read %d bytes, error %v; want 100 bytes and a read error at offset 100", len(got), err)
	}
}
