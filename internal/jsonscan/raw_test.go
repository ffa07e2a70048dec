package jsonscan

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
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

// cutChunk is what one CutElems call copied.
type cutChunk struct {
	base  int64
	data  []byte
	spans []RawSpan
}

// elemsCut reads doc as a reader on several cores does: the elements are
// cut out min bytes at a time, each chunk's elements are read by Span
// scanners one chunk late (so a rewind may span two chunks), and the
// stream scanner reads on from the first element that could not be cut or
// read.
func elemsCut(doc []byte, bufSize, min, maxElem int) (_ [][2]int64, rewound bool, _ error) {
	s := New("d.json", bytes.NewReader(doc), bufSize)
	if err := s.OpenArray("", "doc"); err != nil {
		return nil, false, err
	}
	var out [][2]int64
	var held []cutChunk // cut, not yet read
	i, cutFirst := 0, true
	rewind := func(k, from int) error { // from element from of held[k]
		c := held[k]
		pre := 0
		if from > 0 {
			pre = c.spans[from-1].End
		}
		prefix := [][]byte{c.data[pre:]}
		for _, h := range held[k+1:] {
			prefix = append(prefix, h.data)
		}
		s.Rewind(prefix, c.base+int64(pre))
		err := s.ArrayFrom(i, i == 0, elemFn(s, &out))
		if err == nil {
			err = s.EndDoc("document")
		}
		return err
	}
	for {
		base := s.Off()
		data, spans, st := s.CutElems(nil, nil, cutFirst, min, maxElem)
		cutFirst = cutFirst && len(spans) == 0
		held = append(held, cutChunk{base, data, spans})
		// Read all held chunks but the newest, unless the cut stopped.
		upto := len(held) - 1
		if st != CutMore {
			upto = len(held)
		}
		for k := 0; k < upto; k++ {
			c := held[k]
			for e, sp := range c.spans {
				ss := Span("d.json", c.data[sp.Start:sp.End], c.base+int64(sp.Start))
				if err := ss.Skip(1); err != nil || ss.Rest() {
					return out, true, rewind(k, e)
				}
				out = append(out, [2]int64{c.base + int64(sp.Start), c.base + int64(sp.End)})
				i++
			}
		}
		switch st {
		case CutEnd:
			return out, false, s.EndDoc("document")
		case CutStop:
			last := held[len(held)-1]
			held = held[len(held)-1:]
			return out, true, rewind(0, len(last.spans))
		}
		held = held[upto:]
	}
}

// checkCutAlike fails when reading doc's elements through CutElems differs
// from reading them with the stream scanner, in where the elements lie or
// in the error.
func checkCutAlike(t *testing.T, doc []byte) {
	t.Helper()
	for _, bufSize := range []int{16, 17, 64, 4096} {
		want, wantErr := elemsCareful(doc, bufSize)
		for _, min := range []int{1, 7, 100} {
			for _, maxElem := range []int{8, 1 << 20} {
				got, rewound, err := elemsCut(doc, bufSize, min, maxElem)
				// A valid array of objects nested no deeper than
				// CutElems follows is read without the stream scanner.
				if rewound && wantErr == nil && maxElem > len(doc) && bytes.Count(doc, []byte("{"))+bytes.Count(doc, []byte("["))-1 <= cutMaxDepth && allObjects(want, doc) {
					t.Fatalf("buffer %d, min %d: a valid array was read again by the stream scanner", bufSize, min)
				}
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("buffer %d, min %d, max %d: error\n%v\nwant\n%v", bufSize, min, maxElem, err, wantErr)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("buffer %d, min %d, max %d: elements\n%v\nwant\n%v", bufSize, min, maxElem, got, want)
				}
			}
		}
	}
}

// allObjects reports whether every element is an object.
func allObjects(elems [][2]int64, doc []byte) bool {
	for _, e := range elems {
		if doc[e[0]] != '{' {
			return false
		}
	}
	return true
}

var cutCases = []string{
	`[]`,
	` [ ] `,
	`[{}]`,
	`[{"a":1},{"b":[1,2,{"c":"]}"}]}, {"d":"\"}\\"} ,{"e":"\u00e9\ud83d\ude00 é"}]`,
	"[\n  {\"a\": \"x\"},\n  {\"a\": \"y\"}\n]\n",
	`[{"a":"` + strings.Repeat("x", 200) + `"},{"b":"` + strings.Repeat(`\\`, 40) + `"}]`,
	`[{"a":1},2]`,
	`[{"a":1},]`,
	`[{"a":1},,{}]`,
	`[{"a":1} {"b":2}]`,
	`[{"a":1}}`,
	`[{"a":"b}]`,
	`[{"a":"b\`,
	`[{"a":1},`,
	`[{"a":1}`,
	`[{"a":`,
	"[{\"a\":\"b\x01\"},{}]",
	`[{"a":1]},{}]`,
	`[{"a" 1},{}]`,
	`[{"a":1},{"b":tru}]`,
	`[{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `},{}]`,
	`[{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `},{}]`,
	`[{"a":1` + strings.Repeat("0", 1100) + `},{}]`,
	`[{"a":1},{}] x`,
	`{"a":1}`,
	`[{"a":"\x"},{}]`,
	`[{"a":"\ud800"},{"b":"\uDC00\u12"}]`,
}

func TestCutElemsReadsAsTheStreamScanner(t *testing.T) {
	t.Parallel()
	for _, c := range cutCases {
		checkCutAlike(t, []byte(c))
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
			data, spans, _ := s.CutElems(nil, nil, true, 1<<20, 1<<20)
			s.Rewind([][]byte{data}, base)
			_ = spans
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

// FuzzCutElems: reading an array's elements cut by CutElems, read by Span
// scanners and read again by the stream scanner from the first that could
// not be, finds the elements and the error that the stream scanner alone
// does.
func FuzzCutElems(f *testing.F) {
	for _, c := range cutCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkCutAlike(t, doc)
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

// BenchmarkCutElems cuts benchResults' objects out of the stream.
func BenchmarkCutElems(b *testing.B) {
	doc := benchResults()
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	var data []byte
	var spans []RawSpan
	for b.Loop() {
		s := New("b.json", bytes.NewReader(doc), 64<<10)
		if err := s.OpenArray("", "doc"); err != nil {
			b.Fatal(err)
		}
		n, first := 0, true
		for {
			var st CutStatus
			data, spans, st = s.CutElems(data[:0], spans[:0], first, 128<<10, 1<<20)
			n += len(spans)
			first = false
			if st != CutMore {
				break
			}
		}
		if n != 100000 {
			b.Fatalf("cut %d elements", n)
		}
	}
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
