package imagetest

import (
	"strings"
	"testing"
)

// TestReadmeShowsCIsTestCommand: the tests CI runs (.ci/run's step "tests
// (the README's test command)") are the command the README shows, in a sh
// block of its own, and that command lists the skipped tests.
func TestReadmeShowsCIsTestCommand(t *testing.T) {
	t.Parallel()
	const step = `step "tests (the README's test command)"`
	script := string(readRoot(t, ".ci/run"))
	_, after, ok := strings.Cut(script, "\n"+step+"\n")
	if !ok {
		t.Fatalf(".ci/run has no %s", step)
	}
	var command string
	for _, line := range strings.Split(after, "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			command = line
			break
		}
	}
	if !strings.HasPrefix(command, "go test ") {
		t.Fatalf(".ci/run's test step runs %q; want a go test command first", command)
	}
	if !strings.Contains(command, "-json") || !strings.Contains(command, "| go run ./internal/testsummary") {
		t.Errorf(".ci/run's test command %q does not go through internal/testsummary, which lists the skipped tests", command)
	}
	if readme := string(readRoot(t, "README.md")); !strings.Contains(readme, "```sh\n"+command+"\n```\n") {
		t.Errorf("README.md shows no sh block holding .ci/run's test command %q; change both together", command)
	}
}
