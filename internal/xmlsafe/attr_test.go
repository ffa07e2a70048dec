package xmlsafe

import (
	"encoding/xml"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAttr(t *testing.T) {
	t.Parallel()
	e := xml.StartElement{Attr: []xml.Attr{
		{Name: xml.Name{Local: "name"}, Value: "a"},
		{Name: xml.Name{Space: "x", Local: "line"}, Value: "7"},
		{Name: xml.Name{Local: "name"}, Value: "b"},
	}}
	tests := []struct {
		name, local, want string
	}{
		{"the first attribute of a name is returned", "name", "a"},
		{"an attribute in a namespace is found by its local name", "line", "7"},
		{"a missing attribute is empty", "file", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Attr(e, tt.local)); diff != "" {
				t.Errorf("Attr(%q) (-want +got):\n%s", tt.local, diff)
			}
		})
	}
}
