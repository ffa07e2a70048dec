package evidence

import (
	"github.com/gcloop/gcloop/decide"
)

// MaxDistinctFindings is the most distinct findings one file's reader
// remembers to count a repeated finding once (DESIGN §3, §11). It bounds the
// memory of the fingerprint set to 16 MiB (16-byte hashes in a table at most
// half full). Past it, a finding not yet remembered is counted even though
// it may repeat an earlier one the set could not hold — counts can then be
// too high, never too low — and the reader says so in a note.
const MaxDistinctFindings = 1 << 19

// fpQuadrupleUpTo is the largest table the fingerprint set grows to by
// quadrupling (4 MiB of 16-byte slots).
const fpQuadrupleUpTo = 1 << 18

// fingerprints is a set of 128-bit hashes of decide.DedupeKey, an
// open-addressing table that grows up to 2×MaxDistinctFindings slots.
// A zero slot is empty; hashes are never zero.
type fingerprints struct {
	max   int // 0 means MaxDistinctFindings
	slots [][2]uint64
	n     int
	full  int // findings not remembered because the set was full

	h decide.DedupeHasher
	// sink is what warm loaded, added up.
	sink uint64
}

// hasher returns a hasher of the set's seeds, for another goroutine.
func (s *fingerprints) hasher() decide.DedupeHasher { return s.h.Fork() }

// seenBefore reports whether f repeats a finding already offered, and
// remembers f otherwise (while the set has room).
func (s *fingerprints) seenBefore(f decide.Finding) bool {
	return s.seenFP(s.h.Sum(f))
}

// seenFP is seenBefore for a fingerprint made by a hasher of this set.
func (s *fingerprints) seenFP(fp [2]uint64) bool {
	if s.slots == nil {
		s.slots = make([][2]uint64, 64)
	}
	if i, found := s.find(fp); found {
		return true
	} else if s.n < s.limit() {
		s.slots[i] = fp
		s.n++
		if 2*s.n > len(s.slots) {
			s.grow()
		}
		return false
	}
	s.full++
	return false
}

// find returns the slot holding fp, or the empty slot where it belongs.
func (s *fingerprints) find(fp [2]uint64) (int, bool) {
	mask := len(s.slots) - 1
	for i := int(fp[1]) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case fp:
			return i, true
		case [2]uint64{}:
			return i, false
		}
	}
}

// grow enlarges the table four times while it is small (up to
// fpQuadrupleUpTo slots) and twice after that, up to the room the limit
// needs. Each rehash touches fresh memory, and its page faults and cache
// misses, not the hashing, are what a growing set costs; past 4 MiB a
// table four times too large would cost more peak memory than it saves.
func (s *fingerprints) grow() {
	old := s.slots
	n := 2 * len(old)
	if 2*n <= fpQuadrupleUpTo && n < 2*s.limit() {
		n *= 2
	}
	s.slots = make([][2]uint64, n)
	for _, fp := range old {
		if fp != [2]uint64{} {
			i, _ := s.find(fp)
			s.slots[i] = fp
		}
	}
}

func (s *fingerprints) limit() int {
	if s.max <= 0 {
		return MaxDistinctFindings
	}
	return s.max
}

// duplicateFP is keeper.duplicate for a fingerprint made by a hasher of
// k.seen.
func (k *keeper) duplicateFP(fp [2]uint64) bool {
	if k.seen.seenFP(fp) {
		k.dups++
		return true
	}
	return false
}

// warm loads the slots where the fingerprints of items will be looked up,
// one after the other without waiting on any, so that the cache misses of
// a large set overlap instead of coming one lookup at a time. It changes
// nothing (sink only keeps the loads from being dropped).
func (s *fingerprints) warm(items []sarifPrepItem) {
	if len(s.slots) == 0 {
		return
	}
	mask := len(s.slots) - 1
	var sum uint64
	for k := range items {
		if p := &items[k].p; p.hasFP {
			sum += s.slots[int(p.fp[1])&mask][0]
		}
	}
	s.sink = sum
}
