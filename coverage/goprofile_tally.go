package coverage

import (
	"bytes"
	"math/bits"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// profTally folds the mode lines and runs of blocks of a profile, in input
// order, into per-file coverage.
type profTally struct {
	name  string
	modes []byte // of the first mode line
	files []decide.FileCoverage
	done  map[string]*profSummary
	paths profPaths // the paths its parsers read block lines with
}

// profSummary is what is kept of a file once the profile moved past it.
type profSummary struct {
	file  int    // index in files
	hash  uint64 // of the sorted, merged block ranges and statement counts
	n     int    // number of distinct blocks
	line  int    // profile line where the file's first run started
	all   bool   // every block covered (bits nil)
	none  bool   // no block covered (bits nil)
	bits  []uint64
	total int64
}

// addMode checks a mode line against the ones before.
func (t *profTally) addMode(m []byte, line int) error {
	if t.modes != nil && !bytes.Equal(t.modes, m) {
		return parse.LineError(t.name, line, "mode %q differs from mode %q of the profile above: profiles of different modes cannot be merged", m, t.modes)
	}
	t.modes = append(t.modes[:0], m...)
	return nil
}

// addRun folds one run of a file's blocks; base is added to the run's line
// (which is relative to the part of the profile it was read from).
func (t *profTally) addRun(r *profRun, base int) error {
	line := base + r.line
	sum, seen := t.done[r.file]
	switch {
	case !seen && len(t.files) >= MaxFiles:
		return tooManyFiles(t.name, line)
	case !seen:
		sum = &profSummary{file: len(t.files), hash: r.hash, n: r.n, line: line, total: r.total,
			all: r.hits == r.n, none: r.hits == 0, bits: r.bits}
		t.done[r.file] = sum
		t.files = append(t.files, decide.FileCoverage{Path: r.file, Covered: r.covered, Total: r.total})
	case sum.hash != r.hash || sum.n != r.n:
		return parse.LineError(t.name, line, "the blocks of %s differ from those at line %d: profiles of different builds cannot be merged", r.file, sum.line)
	default:
		t.files[sum.file].Covered = sum.merge(r)
	}
	return nil
}

// merge ORs the covered blocks of r (the same block set, in the same
// order) into s and returns the covered statements of the union.
func (s *profSummary) merge(r *profRun) int64 {
	switch {
	case s.all || r.hits == 0 && s.none:
	case r.hits == r.n:
		s.all, s.none, s.bits = true, false, nil
	case s.none:
		s.none, s.bits = false, r.bits
	case r.hits > 0:
		for i, w := range r.bits {
			s.bits[i] |= w
		}
		hits := 0
		for _, w := range s.bits {
			hits += bits.OnesCount64(w)
		}
		if hits == s.n {
			s.all, s.bits = true, nil
		}
	}
	switch {
	case s.all:
		return s.total
	case s.none:
		return 0
	}
	var covered int64
	for i, st := range r.stmts {
		if s.bits[i/64]&(1<<(i%64)) != 0 {
			covered += int64(st)
		}
	}
	return covered
}
