package decide

import (
	"bytes"
	"encoding/json"
	"testing"
)

// appendIndented must indent as json.Indent does, on any valid JSON once
// compacted, strings with escaped quotes and backslashes included.
func FuzzAppendIndented(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[]}`, `{"a":{},"b":[1,2,{"c":null}]}`, `"x"`, `12`,
		`{"q":"say \"hi\"","b":"a\\","c":"\\\"","d":"\u2028<>&","e":[true,false]}`,
		`[[[[]]],{"":""},-1.5e+10]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, in); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := appendIndented(nil, compact.Bytes()); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q indented:\n%s\nwant:\n%s", compact.Bytes(), got, want.Bytes())
		}
	})
}
