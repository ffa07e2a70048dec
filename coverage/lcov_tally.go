package coverage

// The line tally of LCOV and Cobertura: per-file line coverage, merged
// exactly across a file's records.

import (
	"hash/maphash"
	"math/bits"
	"slices"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// maxMergeBytes caps the memory kept to merge files that appear in several
// records (LCOV) or classes (Cobertura). Realistic reports need a few bits
// per source line; only hostile ones come near it.
const maxMergeBytes = 256 << 20

// lineHit is one instrumented line of the record being read.
type lineHit struct {
	line uint32
	hit  bool
}

// lineTally adds up line coverage per file for formats that list lines one
// by one (LCOV, Cobertura) and may list the same file several times. Only
// the record being read is kept line by line; a finished record is folded
// into a compact per-file summary (two bitmaps over the file's line span,
// or a sorted list when the lines are sparse) so that a later record of the
// same file merges exactly: a line counts once, covered when any record
// hit it — what `lcov --summary` and gcovr do.
type lineTally struct {
	name     string
	stream   *lineStream // non-nil: emit files as they end (StreamLCOV)
	files    []decide.FileCoverage
	sums     map[string]*lineSummary
	cur      []lineHit
	unsorted bool
	curHits  int   // the lines of cur that were hit
	bytes    int64 // memory held by summaries

	// mergedLines and records count the lines and records merged into
	// summaries: they bound the memory a part of the file adds to them
	// (StreamLCOV in parts).
	mergedLines, records int64
}

// lineSummary is what is kept of a file between its records.
type lineSummary struct {
	file  int    // index in files
	min   uint32 // first line of the span (dense form)
	inst  []uint64
	hits  []uint64
	lines []uint32 // sparse form: sorted lines; hits indexes them
}

func newLineTally(name string) *lineTally {
	return &lineTally{name: name, sums: make(map[string]*lineSummary)}
}

// add records one line of the current record.
func (t *lineTally) add(line uint32, hit bool) {
	if n := len(t.cur); n > 0 && !t.unsorted && t.cur[n-1].line >= line {
		t.unsorted = true
	}
	t.cur = append(t.cur, lineHit{line, hit})
	t.curHits += int(b2u(hit))
}

// end closes the current record of file path; errLine is used for errors.
func (t *lineTally) end(path string, errLine int) error {
	cur, covered := t.cur, int64(t.curHits)
	if t.unsorted {
		// add saw a line not above the one before: sort and merge
		// duplicates. Otherwise the lines are strictly increasing.
		slices.SortStableFunc(cur, func(a, b lineHit) int { return int(a.line) - int(b.line) })
		out := cur[:0]
		for _, h := range cur {
			if n := len(out); n > 0 && out[n-1].line == h.line {
				out[n-1].hit = out[n-1].hit || h.hit
				continue
			}
			out = append(out, h)
		}
		cur, covered = out, 0
		for _, h := range cur {
			covered += int64(b2u(h.hit))
		}
	}
	t.cur, t.unsorted, t.curHits = t.cur[:0], false, 0
	if st := t.stream; st != nil {
		ph := maphash.String(st.seed, path)
		if st.repeated == nil {
			if err := st.claim(ph); err != nil {
				return err
			}
		} else if st.repeated[ph] {
			return t.merge(path, cur, errLine)
		}
		// The only record of this file: emit it, keep nothing.
		st.files++
		st.covered += covered
		st.total += int64(len(cur))
		st.emit(decide.FileCoverage{Path: path, Covered: covered, Total: int64(len(cur))})
		return nil
	}
	return t.merge(path, cur, errLine)
}

// empty reports whether no file was read.
func (t *lineTally) empty() bool {
	return len(t.files) == 0 && (t.stream == nil || t.stream.files == 0)
}

// merge folds a record's sorted, duplicate-free lines into the summary of
// file path.
func (t *lineTally) merge(path string, cur []lineHit, errLine int) error {
	t.mergedLines += int64(len(cur))
	t.records++
	sum, seen := t.sums[path]
	if seen {
		cur = mergeLineHits(sum.decode(nil), cur)
		t.bytes -= sum.size()
	} else {
		if len(t.files) >= MaxFiles {
			return tooManyFiles(t.name, errLine)
		}
		sum = &lineSummary{file: len(t.files)}
		t.sums[path] = sum
		t.files = append(t.files, decide.FileCoverage{Path: path})
	}
	covered := sum.encode(cur)
	t.files[sum.file].Covered, t.files[sum.file].Total = covered, int64(len(cur))
	t.bytes += sum.size()
	if t.bytes > maxMergeBytes {
		return parse.LineError(t.name, errLine, "too many distinct lines to merge (over %d MiB of line maps)", maxMergeBytes>>20)
	}
	return nil
}

// facts returns the totals. A streaming tally emits the files it merged
// from several records now, and returns no Files.
func (t *lineTally) facts(format Format) *decide.CoverageFacts {
	f := &decide.CoverageFacts{Format: string(format), Files: t.files}
	for _, fc := range t.files {
		f.Covered += fc.Covered
		f.Total += fc.Total
	}
	if st := t.stream; st != nil {
		for _, fc := range t.files {
			st.emit(fc)
		}
		f.Files = nil
		f.Covered += st.covered
		f.Total += st.total
	}
	return f
}

// mergeLineHits merges two sorted, duplicate-free lists.
func mergeLineHits(a, b []lineHit) []lineHit {
	out := make([]lineHit, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].line < b[j].line:
			out = append(out, a[i])
			i++
		case a[i].line > b[j].line:
			out = append(out, b[j])
			j++
		default:
			out = append(out, lineHit{a[i].line, a[i].hit || b[j].hit})
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func (s *lineSummary) size() int64 {
	return int64(8*(len(s.inst)+len(s.hits)) + 4*len(s.lines))
}

// encode stores a sorted, duplicate-free list: dense bitmaps when the lines
// fill at least one in sixteen of their span, else the sorted list. It
// returns the number of lines hit.
func (s *lineSummary) encode(hs []lineHit) (covered int64) {
	s.inst, s.hits, s.lines = nil, nil, nil
	if len(hs) == 0 {
		return 0
	}
	lo, hi := hs[0].line, hs[len(hs)-1].line
	span := int64(hi) - int64(lo) + 1
	if span <= 16*int64(len(hs)) {
		s.min = lo
		words := (span + 63) / 64
		s.inst = make([]uint64, words)
		s.hits = make([]uint64, words)
		// Branch-free: a third of the lines of a typical file were never
		// run, in no predictable order.
		for _, h := range hs {
			i := h.line - lo
			w, b := i/64, i%64
			hit := b2u(h.hit)
			s.inst[w] |= 1 << b
			s.hits[w] |= hit << b
			covered += int64(hit)
		}
		return covered
	}
	s.lines = make([]uint32, len(hs))
	s.hits = make([]uint64, (len(hs)+63)/64)
	for i, h := range hs {
		s.lines[i] = h.line
		hit := b2u(h.hit)
		s.hits[i/64] |= hit << (i % 64)
		covered += int64(hit)
	}
	return covered
}

// b2u is 1 for true, 0 for false, without a branch.
func b2u(b bool) uint64 {
	var u uint64
	if b {
		u = 1
	}
	return u
}

// decode appends the stored lines to dst, sorted.
func (s *lineSummary) decode(dst []lineHit) []lineHit {
	if s.lines != nil {
		for i, l := range s.lines {
			dst = append(dst, lineHit{l, s.hits[i/64]&(1<<(i%64)) != 0})
		}
		return dst
	}
	for w, word := range s.inst {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			i := w*64 + b
			dst = append(dst, lineHit{s.min + uint32(i), s.hits[w]&(1<<b) != 0})
		}
	}
	return dst
}
