package evidence

import (
	"path"
	"strings"
)

// PatchName is the base name of the file in which a coverage generator
// that ran without write access hands its change over in an artifact:
// `git diff --binary` against the commit it was run on.
const PatchName = "gcloop-changes.patch"

// BaselinePrefix starts the base name of the file that carries, beside
// the patch, the test results of the unchanged commit (JUnit XML or `go
// test -json`): gcloop-baseline.xml, gcloop-baseline.json.
const BaselinePrefix = "gcloop-baseline."

// Role is what a file of an artifact is to a round.
type Role uint8

// The roles.
const (
	// Passed is a file gcloop does not read.
	Passed Role = iota
	// Evidence is a file in a format of the registry.
	Evidence
	// Patch is the generator's change (PatchName).
	Patch
	// Baseline is the test results of the commit before the change
	// (BaselinePrefix): read as the guard's baseline, never as evidence
	// of the round.
	Baseline
)

// RoleOf tells the role of an artifact's file named name whose first
// bytes (at most SniffLen) are head. The patch and the baseline are told
// by name: their content is read, and refused when it is not what the
// name says, by their own readers (a patch reader; ReadTests).
func RoleOf(name string, head []byte) Role {
	base := path.Base(name)
	switch {
	case base == PatchName:
		return Patch
	case strings.HasPrefix(base, BaselinePrefix):
		return Baseline
	case Known(head):
		return Evidence
	}
	return Passed
}

// handedOver reports whether the slash path p names a file a generator
// hands over with its change (the patch, the baseline): never evidence of
// the round, wherever it lies.
func handedOver(p string) bool {
	r := RoleOf(p, nil)
	return r == Patch || r == Baseline
}
