package xmlsafe

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestAllowDoctype(t *testing.T) {
	t.Parallel()
	known := func(d string) bool { return d == `DOCTYPE r SYSTEM "r.dtd"` }
	tests := []struct {
		name  string
		in    string
		allow func(string) bool
		want  error
	}{
		{"a DOCTYPE is refused by default", `<!DOCTYPE r SYSTEM "r.dtd"><r/>`, nil, ErrDTD},
		{"an allowed DOCTYPE passes", `<!DOCTYPE r SYSTEM "r.dtd"><r/>`, known, nil},
		{"another DOCTYPE is refused", `<!DOCTYPE r SYSTEM "x.dtd"><r/>`, known, ErrDTD},
		{"a second DOCTYPE is refused", `<!DOCTYPE r SYSTEM "r.dtd"><!DOCTYPE r SYSTEM "r.dtd"><r/>`, known, ErrDTD},
		{"a DOCTYPE after the root is refused", `<r><!DOCTYPE r SYSTEM "r.dtd"></r>`, known, ErrDTD},
		{"an internal subset is refused", `<!DOCTYPE r SYSTEM "r.dtd" [<!ENTITY a "b">]><r/>`, known, ErrDTD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := NewDecoder(strings.NewReader(tt.in))
			if tt.allow != nil {
				d.AllowDoctype(tt.allow)
			}
			var err error
			for err == nil {
				_, err = d.Token()
			}
			if errors.Is(err, io.EOF) {
				err = nil
			}
			if !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
		})
	}
}
