package xmlsafe

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestDoctype(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"JaCoCo's PUBLIC line passes", `<!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><r/>`, nil},
		{"gcovr's SYSTEM line naming another root passes", `<!DOCTYPE coverage SYSTEM 'https://www.jacoco.org/jacoco/trunk/coverage/report.dtd'><report/>`, nil},
		{"any SYSTEM URI passes and is never fetched", `<!DOCTYPE r SYSTEM "file:///etc/passwd"><r/>`, nil},
		{"a bare DOCTYPE passes", "<!DOCTYPE r>\n<r/>", nil},
		{"a second DOCTYPE is refused", `<!DOCTYPE r SYSTEM "r.dtd"><!DOCTYPE r SYSTEM "r.dtd"><r/>`, ErrDTD},
		{"a DOCTYPE after the root is refused", `<r><!DOCTYPE r SYSTEM "r.dtd"></r>`, ErrDTD},
		{"an internal subset is refused", `<!DOCTYPE r SYSTEM "r.dtd" [<!ENTITY a "b">]><r/>`, ErrDTD},
		{"an internal subset without an external id is refused", `<!DOCTYPE r [<!ENTITY a "b">]><r/>`, ErrDTD},
		{"an entity declaration is refused", `<!ENTITY a "b"><r/>`, ErrDTD},
		{"an unterminated literal is an error", `<!DOCTYPE r SYSTEM "r.dtd><r/>`, errSyntax},
		{"SYSTEM without a literal is refused", `<!DOCTYPE r SYSTEM r.dtd><r/>`, ErrDTD},
		{"PUBLIC with one literal is refused", `<!DOCTYPE r PUBLIC "id"><r/>`, ErrDTD},
		{"an entity of an external DTD stays undeclared", `<!DOCTYPE r SYSTEM "r.dtd"><r>&a;</r>`, errSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := NewDecoder(strings.NewReader(tt.in))
			var err error
			for err == nil {
				_, err = d.Token()
			}
			if errors.Is(err, io.EOF) {
				err = nil
			}
			switch {
			case tt.want == errSyntax:
				if err == nil || errors.Is(err, ErrDTD) {
					t.Errorf("error %v, want a syntax error", err)
				}
			case tt.want == nil && err != nil, !errors.Is(err, tt.want):
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
}

// errSyntax stands for any error other than ErrDTD in the table above.
var errSyntax = errors.New("syntax error")

func TestPlainDoctype(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{`DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd"`, true},
		{"DOCTYPE\treport\nPUBLIC '-//X//EN'  'report.dtd' ", true},
		{`DOCTYPE r SYSTEM "a" "b"`, false},
		{`DOCTYPE r SYSTEM "a"x`, false},
		{`DOCTYPE 1r`, false},
		{`DOCTYPEr`, false},
		{`DOCTYPE`, false},
		{`ELEMENT r ANY`, false},
		{`DOCTYPE r SYSTEM "a" []`, false},
	}
	for _, tt := range tests {
		if got := PlainDoctype(tt.in); got != tt.want {
			t.Errorf("PlainDoctype(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzDecoder: no input makes the decoder panic or pass a DTD with an
// internal subset, and PlainDoctype never accepts a "[".
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{
		`<!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report/>`,
		`<!DOCTYPE coverage SYSTEM 'x.dtd'><coverage/>`,
		`<!DOCTYPE r [<!ENTITY a "b">]><r>&a;</r>`,
		`<r a="1">text<!-- c --><?pi x?></r>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(strings.NewReader(string(data)))
		d.SetMaxToken(4 << 10)
		for i := 0; i < 1<<16; i++ {
			if _, err := d.Token(); err != nil {
				break
			}
		}
		if PlainDoctype(string(data)) && strings.ContainsAny(string(data), "[]") && !quotedBrackets(string(data)) {
			t.Fatalf("PlainDoctype accepted an internal subset: %q", data)
		}
	})
}

// quotedBrackets reports whether every "[" or "]" of s is inside a quoted
// literal (which a plain DOCTYPE may carry in its URI).
func quotedBrackets(s string) bool {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '"' || c == '\''):
			q = c
		case q == 0 && (c == '[' || c == ']'):
			return false
		}
	}
	return true
}
