package xmlsafe

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOnToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		read func(d *Decoder) error
		want int
	}{
		{"each token read is counted", `<r>a<b/></r>`, func(d *Decoder) error {
			for range 5 {
				if _, err := d.Token(); err != nil {
					return err
				}
			}
			return nil
		}, 5},
		{"the tokens Text reads are counted", `<r>a<b>c</b>d</r>`, func(d *Decoder) error {
			if _, err := d.Token(); err != nil {
				return err
			}
			_, err := d.Text(10)
			return err
		}, 7},
		{"the tokens Skip reads are counted", `<r><b/>x</r>`, func(d *Decoder) error {
			if _, err := d.Token(); err != nil {
				return err
			}
			return d.Skip()
		}, 5},
		{"a token that fails to read is counted", `<r>&bad;</r>`, func(d *Decoder) error {
			_, _ = d.Token()
			_, err := d.Token()
			if err == nil {
				t.Errorf("no error for an undeclared entity")
			}
			return nil
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := NewDecoder(strings.NewReader(tt.in))
			n := 0
			d.OnToken(func() { n++ })
			if err := tt.read(d); err != nil {
				t.Fatalf("read: %v", err)
			}
			if diff := cmp.Diff(tt.want, n); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}
