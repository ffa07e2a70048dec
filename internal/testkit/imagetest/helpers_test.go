package imagetest

import (
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// root is the module root, three levels above this package.
var root = filepath.Join("..", "..", "..")

// readRoot reads a file of the repository by its slash path.
func readRoot(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return b
}

// decodeYAML decodes one YAML file of the repository into v.
func decodeYAML(t *testing.T, path string, v any) {
	t.Helper()
	if err := yaml.Unmarshal(readRoot(t, path), v); err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
}
