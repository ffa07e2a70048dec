package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gcloop/gcloop/internal/parse"
	"github.com/google/go-cmp/cmp"
)

// valid scans one JSON value and reports whether the whole input was it
// and nothing else (white space aside).
func valid(in string, bufSize int) error {
	s := New("t.json", strings.NewReader(in), bufSize)
	if err := s.Skip(0); err != nil {
		return err
	}
	if _, err := s.Peek(); err == nil {
		return errors.New("trailing data")
	}
	return nil
}

// The scanner accepts exactly the documents encoding/json accepts, with
// any buffer size.
func TestScannerAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	docs := []string{
		`{}`, `[]`, `{"a":[1,-2.5e+3,0,"x\u00e9\ud83d\ude00\n",true,false,null,{"b":{}}]}`, `"\ud800"`, ` 1 `,
		`{"a":1,}`, `[1,]`, `[,1]`, `{"a" 1}`, `{1:2}`, `01`, `1.`, `.5`, `-`, `1e`, `"\x"`, `"a` + "\x01" + `"`, `[1 2]`, `tru`, `nul`, `{"a":1}}`, `"\u12"`, `[`, `{"a":`,
		`-0`, `1E-7`, `"\/\b\f\r\t\""`, "\"\xff\"", `[[[[[]]]]]`, ``, ` `,
	}
	for _, d := range docs {
		for _, size := range []int{16, 64, 4096} {
			err := valid(d, size)
			if got, want := err == nil, json.Valid([]byte(d)); got != want {
				t.Errorf("buffer %d: scanner accepts %q = %v (%v), encoding/json = %v", size, d, got, err, want)
			}
		}
	}
}

// Errors are ParseErrors of one line naming the file and byte offset.
func TestScannerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"a":1,}`, "t.json: byte 7: "},
		{`[1 2]`, "t.json: byte 3: "},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), "nested deeper than 512 levels"},
		{"1" + strings.Repeat("0", MaxNumber), "number longer than 1024 bytes"},
	}
	for _, tt := range tests {
		err := valid(tt.in, 64)
		var pe *parse.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40q: error %v, want a one-line ParseError containing %q", tt.in, err, tt.want)
		}
	}
}

// Object, Array and StringVal walk a document; a long string is cut to
// the caller's limit without being held whole.
func TestScannerWalk(t *testing.T) {
	t.Parallel()
	in := "\uFEFF" + `{"name":"` + strings.Repeat("é", 100) + `","n":[1,null,3],"skip":{"x":[true]},"id":null}`
	s := New("t.json", iotest.OneByteReader(strings.NewReader(in)), 16)
	if err := s.BeginDoc("report"); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := s.Object("", "", func(key []byte) error {
		k := string(key) // key is the scanner's until its next call
		switch k {
		case "name", "id":
			v, err := s.StringVal("", k, 11)
			got = append(got, k+"="+v)
			return err
		case "n":
			return s.Array("", "n", func(i int) error {
				n, ok, err := s.IntVal("n", "")
				if ok {
					got = append(got, "n="+string(rune('0'+n)))
				}
				return err
			})
		}
		return s.Skip(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EndDoc("report"); err != nil {
		t.Fatal(err)
	}
	want := []string{"name=éééé…", "n=1", "n=3", "id="}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
}

func TestCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefgh", 5, "ab…"},
		{"éééé", 6, "é…"}, // never splits a UTF-8 sequence
		{"abc", 1, "…"},
	}
	for _, tt := range tests {
		if got := Cap(tt.in, tt.max); got != tt.want {
			t.Errorf("Cap(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

// FuzzScanner: the scanner never panics, accepts exactly what
// encoding/json accepts whatever its buffer size — except past its
// documented limits (MaxNumber, MaxDepth), which it refuses by name — and
// its errors are one-line ParseErrors.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e+3,"x\u00e9\ud83d\ude00",true,null,{}]}`, `[1,]`, `"\ud800"`, `01`, "\"\xff\"", ` {"runs":[{"results":[]}]} `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want := json.Valid([]byte(in))
		for _, size := range []int{16, 4096} {
			err := valid(in, size)
			if err != nil && want && limitError(err) {
				continue
			}
			if (err == nil) != want {
				t.Fatalf("buffer %d: scanner error %v, encoding/json valid %v", size, err, want)
			}
			if err != nil && err.Error() != "trailing data" {
				var pe *parse.Error
				if !errors.As(err, &pe) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %T %q is not a one-line ParseError", err, err)
				}
			}
		}
	})
}

// plainRun stops exactly where the byte-by-byte loop stops, or before.
func TestPlainRun(t *testing.T) {
	t.Parallel()
	for n := 0; n < 40; n++ {
		for _, special := range []byte{'"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xff, 'a', 0x20} {
			b := []byte(strings.Repeat("é", 20))[:n]
			b = append(b, special, 'x', 'y')
			for from := 0; from <= n; from++ {
				want := from
				for want < len(b) && plain[b[want]] {
					want++
				}
				got := plainRun(b, from)
				if got > want || got < from {
					t.Fatalf("plainRun(%q, %d) = %d, want at most %d", b, from, got, want)
				}
				if got < want && len(b)-got >= 8 {
					t.Fatalf("plainRun(%q, %d) = %d stopped early at a plain byte (want %d)", b, from, got, want)
				}
			}
		}
	}
}

// limitError reports a refusal for one of the scanner's limits.
func limitError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "number longer than") || strings.Contains(msg, "nested deeper than")
}

// asciiRun stops exactly where the byte-by-byte loop over plainASCII
// stops, or before, and never early more than 8 bytes from the end.
func TestASCIIRun(t *testing.T) {
	t.Parallel()
	for n := 0; n < 40; n++ {
		for _, special := range []byte{'"', '\\', 0x00, 0x1f, 0x7f, 0x80, 0xc3, 0xff, 'a', 0x20} {
			b := []byte(strings.Repeat("ab", 20))[:n]
			b = append(b, special, 'x', 'y')
			for from := 0; from <= n; from++ {
				want := from
				for want < len(b) && plainASCII[b[want]] {
					want++
				}
				got := asciiRun(b, from)
				if got > want || got < from {
					t.Fatalf("asciiRun(%q, %d) = %d, want at most %d", b, from, got, want)
				}
				if got < want && len(b)-got >= 8 {
					t.Fatalf("asciiRun(%q, %d) = %d stopped early at a plain byte (want %d)", b, from, got, want)
				}
			}
		}
	}
}

// walkValue reads one value with Object, Array, StringVal, Number and
// Literal into what encoding/json decodes (numbers as json.Number).
func walkValue(s *Scanner) (any, error) {
	c, err := s.Next()
	if err != nil {
		return nil, err
	}
	switch {
	case c == '{':
		m := map[string]any{}
		err := s.Object("", "", func(key []byte) error {
			k := string(key)
			v, err := walkValue(s)
			m[k] = v
			return err
		})
		return m, err
	case c == '[':
		a := []any{}
		err := s.Array("", "", func(int) error {
			v, err := walkValue(s)
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		return s.StringVal("", "", 1<<20)
	case c == '-' || c >= '0' && c <= '9':
		b, err := s.Number()
		return json.Number(b), err
	}
	lit, err := s.Literal()
	switch lit {
	case "true":
		return true, err
	case "false":
		return false, err
	}
	return nil, err
}

// compareWalk checks that walking in with the scanner, whatever its buffer
// size, gives the keys and values encoding/json decodes.
func compareWalk(t *testing.T, in string, mustBeValid bool) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(in))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil || !json.Valid([]byte(in)) {
		if mustBeValid {
			t.Fatalf("%.60q is not valid JSON: %v", in, err)
		}
		return
	}
	if longKey(want) {
		return // Object cuts keys at 256 bytes
	}
	for _, size := range []int{16, 17, 64, 4096} {
		s := New("t.json", iotest.OneByteReader(strings.NewReader(in)), size)
		if size%2 == 0 {
			s = New("t.json", strings.NewReader(in), size)
		}
		got, err := walkValue(s)
		if err != nil {
			if limitError(err) {
				return
			}
			t.Fatalf("buffer %d: %v", size, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("buffer %d: %.60q (-encoding/json +scanner):\n%s", size, in, diff)
		}
	}
}

// longKey reports whether v holds an object key longer than 256 bytes.
func longKey(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if len(k) > 256 || longKey(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if longKey(e) {
				return true
			}
		}
	}
	return false
}

// Keys and strings read in place from the buffer survive refills.
func TestScannerWalkAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	var big bytes.Buffer
	big.WriteString(`{"runs":[`)
	for i := range 300 {
		fmt.Fprintf(&big, `{"key%[1]d" : "value %[1]d", "n":%[1]d, "é%[1]d":"\u00e9 \n", "long%[1]d"  :  %[2]q},`, i, strings.Repeat("x", i%40))
	}
	big.WriteString(`{}]}`)
	for _, in := range []string{
		big.String(),
		`{"a":1,"b":"x","a":2}`,
		"{\"k\xff\":\"v\xfe\"}",
		"{\"0000000000000000\x91\xb5\":\"\xff\xfe\xfd\"}",
		`{"k\u00e9":"v","":""}`,
		` { "abcdefghijklmnopq" :"abcdefghijklmnopqrstu" , "abcdefghijklmnop":  [ "abcdefghijklmnopq" ] } `,
	} {
		compareWalk(t, in, true)
	}
}

// FuzzScannerWalk: walking any valid document gives what encoding/json
// decodes, whatever the buffer size.
func FuzzScannerWalk(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e+3,"x\u00e9\ud83d\ude00",true,null,{}]}`, `{"abcdefghijklmnopq" :"v","a":{"b":"c"}}`, "{\"k\xff\":1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { compareWalk(t, in, false) })
}
