package coverage

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"io"
	"math/bits"
	"slices"

	"github.com/gcloop/gcloop/decide"
)

// ReadLCOV reads an LCOV tracefile (geninfo, c8/istanbul, coverage.py,
// grcov ...). Line totals count the DA records: a file listed in several
// records (SF ... end_of_record) counts each line once, covered when any
// record hit it, and the LF/LH summaries are ignored — exactly what
// `lcov --summary` prints, also when LF/LH disagree with the DA lines.
// Function and branch records are skipped; unknown upper-case keys are
// skipped too, since newer lcov versions add some.
func ReadLCOV(name string, r io.Reader) (*decide.CoverageFacts, error) {
	return readLCOV(name, r, newLineTally(name))
}

// readLCOV parses LCOV into the tally t.
func readLCOV(name string, r io.Reader, t *lineTally) (*decide.CoverageFacts, error) {
	s := newLineScanner(name, r)
	var (
		path    []byte // SF of the open record
		open    bool
		openAt  int
		pathStr string
	)
	for {
		if open {
			lcovFastDA(s, t)
		}
		line, ok := s.Next()
		if !ok {
			break
		}
		if len(line) > 3 && line[0] == 'D' && line[1] == 'A' && line[2] == ':' {
			if !open {
				return nil, s.errorf("DA record outside a source file record (want SF: first)")
			}
			ln, hit, err := lcovDA(line[3:])
			if err != "" {
				return nil, s.errorf("bad line record %s: %s", quoteSnippet(line), err)
			}
			t.add(ln, hit)
			continue
		}
		switch {
		case len(line) == 0:
		case bytes.HasPrefix(line, []byte("SF:")):
			if open {
				return nil, s.errorf("SF: while the record of %q opened at line %d has no end_of_record", pathStr, openAt)
			}
			p := bytes.TrimSpace(line[3:])
			if len(p) == 0 {
				return nil, s.errorf("empty SF: path")
			}
			path = append(path[:0], p...)
			pathStr = string(path)
			open, openAt = true, s.Line()
		case string(bytes.TrimSpace(line)) == "end_of_record":
			if !open {
				return nil, s.errorf("end_of_record without SF:")
			}
			if err := t.end(pathStr, s.Line()); err != nil {
				return nil, err
			}
			open = false
		case lcovKey(line):
			// TN, FN, FNDA, FNF, FNH, BRDA, BRF, BRH, LF, LH, VER, ...
		default:
			return nil, s.errorf("not an LCOV record: %s (want KEY:value or end_of_record)", quoteSnippet(line))
		}
	}
	if err := s.failure(); err != nil {
		return nil, err
	}
	if open {
		return nil, decide.LineError(name, s.Line(), "truncated: the record of %q opened at line %d has no end_of_record", pathStr, openAt)
	}
	if len(t.files) == 0 && (t.stream == nil || t.stream.files == 0) {
		return nil, decide.LineError(name, s.Line()+1, "no source file record (SF:) in LCOV data")
	}
	return t.facts(FormatLCOV), nil
}

// lcovFastDA consumes the run of plain "DA:line,count\n" lines (and of
// records it skips) at the front of the scanner's window, parsing them in
// place: no line splitting, no calls per byte. It stops, without consuming,
// at the first line that is anything else, incomplete or unusual (a
// checksum, "\r", a long number), leaving it to the careful path.
//
// Most DA lines have numbers of at most seven digits; those are read eight
// bytes at a time (see swarDigits) without a branch per byte. Any other
// line takes the byte loop below, which accepts a superset with the same
// results.
func lcovFastDA(s *lineScanner, t *lineTally) {
	buf := s.Window()
	cur, unsorted := t.cur, t.unsorted
	var last uint32
	if n := len(cur); n > 0 {
		last = cur[n-1].line
	}
	used, lines := 0, 0
	for len(buf) > 6 {
		if buf[0] != 'D' || buf[1] != 'A' || buf[2] != ':' {
			// Skip the other records of the open file (FN, FNDA, BRDA,
			// LF, LH, ...); SF and end_of_record take the careful path.
			if buf[0] == 'S' || !lcovFastKey(buf) {
				break
			}
			nl := indexNL(buf)
			if nl < 0 {
				break
			}
			used += nl + 1
			lines++
			buf = buf[nl+1:]
			continue
		}
		var ln uint32
		var hit bool
		var i int
		if len(buf) >= 3+8+1+8 {
			// "DA:" up to 7 digits "," up to 7 digits "\n".
			x := binary.LittleEndian.Uint64(buf[3:])
			n := swarDigits(x)
			if n == 0 || n == 8 || byte(x>>(8*n)) != ',' {
				goto slow
			}
			y := binary.LittleEndian.Uint64(buf[4+n:])
			k := swarDigits(y)
			if k == 0 || k == 8 || byte(y>>(8*k)) != '\n' {
				goto slow
			}
			ln = swarParse(x, n)
			hit = (y^0x3030303030303030)&(1<<(8*k)-1) != 0
			i = 4 + n + k
			goto add
		}
	slow:
		i = 3
		ln = 0
		for n := 0; i < len(buf) && n < 9; i, n = i+1, n+1 {
			c := buf[i] - '0'
			if c > 9 {
				break
			}
			ln = ln*10 + uint32(c)
		}
		if i == 3 || i >= len(buf) || buf[i] != ',' {
			break
		}
		i++
		{
			j := i
			hit = false
			for i < len(buf) && i-j < 20 {
				c := buf[i]
				if c < '0' || c > '9' {
					break
				}
				hit = hit || c != '0'
				i++
			}
			if i == j || i >= len(buf) || buf[i] != '\n' {
				break
			}
		}
	add:
		if len(cur) > 0 && ln <= last {
			unsorted = true
		}
		last = ln
		cur = append(cur, lineHit{ln, hit})
		used += i + 1
		lines++
		buf = buf[i+1:]
	}
	t.cur, t.unsorted = cur, unsorted
	s.Consume(used, lines)
}

// lcovFastKey is lcovKey(b[:min(len(b), 16)]), reading the first eight
// bytes at once.
func lcovFastKey(b []byte) bool {
	if len(b) < 8 {
		return lcovKey(b)
	}
	x := binary.LittleEndian.Uint64(b)
	// As in swarDigits, for the range 'A'..'Z'.
	m := ((x - 0x4141414141414141) | (x + 0x2525252525252525)) & 0x8080808080808080
	k := bits.TrailingZeros64(m) >> 3
	if k == 8 {
		return lcovKey(b[:min(len(b), 16)])
	}
	return k > 0 && byte(x>>(8*k)) == ':'
}

// swarDigits returns how many of the eight bytes of x (little-endian: the
// first byte is the lowest) are ASCII digits before the first other byte;
// 8 when all are. The bytes after the first non-digit do not matter.
func swarDigits(x uint64) int {
	// A byte has its high bit set in x-0x30.. when it is below '0' (or
	// 0x80 and up), in x+0x46.. when it is above '9'. Borrows and carries
	// only come out of non-digit bytes, so they cannot flag a byte below
	// the first non-digit one.
	m := ((x - 0x3030303030303030) | (x + 0x4646464646464646)) & 0x8080808080808080
	return bits.TrailingZeros64(m) >> 3
}

// swarParse returns the value of the n (1..7) decimal digits at the start
// of x.
func swarParse(x uint64, n int) uint32 {
	// Keep the n digits as values 0..9 in the top n bytes, with zero
	// bytes (leading zeros) below, then combine pairs, quads and halves.
	x = (x - 0x3030303030303030) << (8 * (8 - n))
	x = x*10 + x>>8
	x = ((x&0x000000FF000000FF)*(100+1000000<<32) + (x>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
	return uint32(x)
}

// indexNL is bytes.IndexByte(b, '\n') tuned for short lines: it looks at
// the first 32 bytes eight at a time before calling it.
func indexNL(b []byte) int {
	i := 0
	for ; i+8 <= len(b) && i < 32; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:]) ^ 0x0a0a0a0a0a0a0a0a
		// The lowest byte flagged is the first zero byte of x, i.e. the
		// first '\n'; flags above it may be spurious.
		if z := (x - 0x0101010101010101) &^ x & 0x8080808080808080; z != 0 {
			return i + bits.TrailingZeros64(z)>>3
		}
	}
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j
	}
	return -1
}

// lcovKey reports whether line starts with an upper-case key and a colon.
func lcovKey(line []byte) bool {
	i := 0
	for i < len(line) && line[i] >= 'A' && line[i] <= 'Z' {
		i++
	}
	return i > 0 && i < len(line) && line[i] == ':'
}

// lcovDA reads "line,count[,checksum]"; err is "" when it is well formed.
// The count only matters as zero or not, so counts of any length (gcov's
// are 64-bit) are accepted without being converted.
func lcovDA(b []byte) (line uint32, hit bool, err string) {
	v, rest, ok := parseUint(b)
	if !ok || v > 1<<31 {
		return 0, false, "want a line number"
	}
	if len(rest) == 0 || rest[0] != ',' {
		return 0, false, "want \"line,count\""
	}
	rest = rest[1:]
	if len(rest) > 0 && rest[0] == '-' {
		return 0, false, "negative count"
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		if rest[i] != '0' {
			hit = true
		}
		i++
	}
	if i == 0 || i > 20 {
		return 0, false, "want a count of at most 20 digits"
	}
	if i < len(rest) && rest[i] != ',' {
		return 0, false, "unexpected text after the count"
	}
	return uint32(v), hit, ""
}

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
	bytes    int64 // memory held by summaries
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
}

// end closes the current record of file path; errLine is used for errors.
func (t *lineTally) end(path string, errLine int) error {
	cur := t.cur
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
		cur = out
	}
	t.cur, t.unsorted = t.cur[:0], false
	if st := t.stream; st != nil && !st.repeated[maphash.String(st.seed, path)] {
		// The only record of this file: emit it, keep nothing.
		var covered int64
		for _, h := range cur {
			covered += int64(b2u(h.hit))
		}
		st.files++
		st.covered += covered
		st.total += int64(len(cur))
		st.emit(decide.FileCoverage{Path: path, Covered: covered, Total: int64(len(cur))})
		return nil
	}
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
		return decide.LineError(t.name, errLine, "too many distinct lines to merge (over %d MiB of line maps)", maxMergeBytes>>20)
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
