package main

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/gcloop/gcloop/cmd/gcloop/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in the scenario files")

// TestMain lets the scripts run `gcloop` as a real program: testscript
// re-executes this test binary as the command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gcloop": func() {
			os.Exit(cli.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
		},
	})
}

// TestScenarios runs the end-to-end scenarios of testdata/scenarios: each
// archive holds evidence files, the gcloop commands to run and their
// expected output. `go test ./cmd/gcloop -update` rewrites the expected
// output from what gcloop now prints.
func TestScenarios(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/scenarios",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("SOURCE_DATE_EPOCH", "1767225600") // 2026-01-01T00:00:00Z
			return nil
		},
	})
}

// TestCLI runs the scripts of testdata/script: usage, exit codes and error
// messages.
func TestCLI(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{Dir: "testdata/script", UpdateScripts: *update})
}
