package webhook

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func TestSignatureValid(t *testing.T) {
	t.Parallel()
	s := newSigner([]byte("It's a Secret to Everybody"))
	// The example of GitHub's documentation on validating deliveries.
	const docs = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	tests := []struct {
		name   string
		header string
		body   string
		want   bool
	}{
		{"GitHub's documented example", docs, "Hello, World!", true},
		{"upper-case hex", strings.ToUpper(docs[:7]) + strings.ToUpper(docs[7:]), "Hello, World!", false},
		{"upper-case digest", docs[:7] + strings.ToUpper(docs[7:]), "Hello, World!", true},
		{"another body", docs, "Hello, World?", false},
		{"no prefix", docs[7:], "Hello, World!", false},
		{"sha1 prefix", "sha1=" + docs[7:], "Hello, World!", false},
		{"one digit short", docs[:len(docs)-1], "Hello, World!", false},
		{"one digit more", docs + "0", "Hello, World!", false},
		{"not hex", docs[:len(docs)-2] + "zz", "Hello, World!", false},
		{"empty", "", "Hello, World!", false},
		{"Sign's output", Sign([]byte("It's a Secret to Everybody"), []byte("{}")), "{}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := s.valid(tt.header, []byte(tt.body)); got != tt.want {
				t.Errorf("valid(%q) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

// TestSignatureComparedInConstantTime reads signature.go: the digests are
// compared with hmac.Equal, and nothing else compares bytes or strings
// there (bytes.Equal, ==, != on anything but nil and booleans stop at the
// first difference and leak how much of a guess was right).
func TestSignatureComparedInConstantTime(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "signature.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var hmacEqual int
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				switch id.Name + "." + n.Sel.Name {
				case "hmac.Equal":
					hmacEqual++
				case "bytes.Equal", "bytes.Compare", "strings.EqualFold", "strings.Compare", "reflect.DeepEqual":
					t.Errorf("%s: %s.%s compares in variable time", fset.Position(n.Pos()), id.Name, n.Sel.Name)
				}
			}
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				if !isNilOrLen(n.X) && !isNilOrLen(n.Y) {
					t.Errorf("%s: %s compares in variable time", fset.Position(n.Pos()), n.Op)
				}
			}
		}
		return true
	})
	if hmacEqual != 1 {
		t.Errorf("signature.go calls hmac.Equal %d times, want 1", hmacEqual)
	}
}

// isNilOrLen is nil, a length or a number: comparisons that leak nothing
// of a digest.
func isNilOrLen(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "nil" || e.Name == "false" || e.Name == "true"
	case *ast.BasicLit:
		return e.Kind == token.INT
	case *ast.CallExpr:
		id, ok := e.Fun.(*ast.Ident)
		return ok && id.Name == "len"
	case *ast.BinaryExpr:
		return isNilOrLen(e.X) || isNilOrLen(e.Y)
	}
	return false
}
