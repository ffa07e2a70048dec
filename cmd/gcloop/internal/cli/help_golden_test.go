package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateHelp = flag.Bool("update", false, "rewrite the help golden files under testdata/help")

// The help of the commands whose flags come from the declared loop settings
// is a contract: a flag's name, type, default and help line stay as they
// are however the flags are built.
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"decide", "run"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if code := Main(context.Background(), []string{cmd, "--help"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			golden := filepath.Join("testdata", "help", cmd+".txt")
			if *updateHelp {
				if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
				t.Errorf("gcloop %s --help changed (-want +got):\n%s", cmd, diff)
			}
		})
	}
}
