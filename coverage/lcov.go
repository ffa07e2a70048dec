package coverage

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
	"slices"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
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
	if err := parseLCOV(newLineScanner(name, r), t, true); err != nil {
		return nil, err
	}
	return t.facts(FormatLCOV), nil
}

// parseLCOV parses the records of s into t. whole is set when s reads the
// whole file (or its rest): then a file with no SF: record is an error;
// a part of the file (StreamLCOV's parts) may have none.
func parseLCOV(s *lineScanner, t *lineTally, whole bool) error {
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
				return s.errorf("DA record outside a source file record (want SF: first)")
			}
			ln, hit, err := lcovDA(line[3:])
			if err != "" {
				return s.errorf("bad line record %s: %s", quoteSnippet(line), err)
			}
			t.add(ln, hit)
			continue
		}
		switch {
		case len(line) == 0:
		case bytes.HasPrefix(line, []byte("SF:")):
			if open {
				return s.errorf("SF: while the record of %q opened at line %d has no end_of_record", pathStr, openAt)
			}
			p := bytes.TrimSpace(line[3:])
			if len(p) == 0 {
				return s.errorf("empty SF: path")
			}
			path = append(path[:0], p...)
			pathStr = string(path)
			open, openAt = true, s.Line()
		case string(bytes.TrimSpace(line)) == "end_of_record":
			if !open {
				return s.errorf("end_of_record without SF:")
			}
			if err := t.end(pathStr, s.Line()); err != nil {
				return err
			}
			open = false
		case lcovKey(line):
			// TN, FN, FNDA, FNF, FNH, BRDA, BRF, BRH, LF, LH, VER, ...
		default:
			return s.errorf("not an LCOV record: %s (want KEY:value or end_of_record)", quoteSnippet(line))
		}
	}
	if err := s.failure(); err != nil {
		return err
	}
	if open {
		return parse.LineError(s.name, s.Line(), "truncated: the record of %q opened at line %d has no end_of_record", pathStr, openAt)
	}
	if whole && t.empty() {
		return lcovNoRecord(s.name, s.Line()+1)
	}
	return nil
}

// lcovNoRecord is the error for LCOV data without a record, at line.
func lcovNoRecord(name string, line int) error {
	return parse.LineError(name, line, "no source file record (SF:) in LCOV data")
}

// lcovFastDA consumes the run of plain "DA:line,count\n" lines (and of
// records it skips) at the front of the scanner's window, parsing them in
// place: no line splitting, no calls per byte. It stops, without consuming,
// at the first line that is anything else, incomplete or unusual (a
// checksum, "\r", a long number), leaving it to the careful path.
//
// Most DA lines have numbers of at most seven digits; those are read eight
// bytes at a time (see swarDigits) without a branch per byte, in the small
// loop of lcovDARun. Any other line takes lcovOtherLine's byte loop, which
// accepts a superset with the same results.
func lcovFastDA(s *lineScanner, t *lineTally) {
	buf := s.Window()
	cur, unsorted, hits := t.cur, t.unsorted, t.curHits
	var last uint32
	if n := len(cur); n > 0 {
		last = cur[n-1].line
	}
	p, lines := 0, 0
	for {
		if cap(cur)-len(cur) < 256 {
			cur = slices.Grow(cur, 256)
		}
		room := cur[len(cur):cap(cur)]
		used, n, h, l, u := lcovDARun(buf[p:], room, last)
		cur = cur[:len(cur)+n]
		hits += h
		p += used
		lines += n
		unsorted = unsorted || u
		last = l
		if n == len(room) {
			continue // room is full: more may follow
		}
		adv, ln, hit, da := lcovOtherLine(buf[p:])
		if adv == 0 {
			break
		}
		if da {
			unsorted = unsorted || ln <= last
			last = ln
			cur = append(cur, lineHit{ln, hit})
			hits += int(b2u(hit))
		}
		p += adv
		lines++
	}
	t.cur, t.unsorted, t.curHits = cur, unsorted, hits
	s.Consume(p, lines)
}

// lcovDARun is lcovFastDA's hot loop: it parses the lines at the start of
// buf of the form "DA:", up to 7 digits, ",", up to 7 digits, "\n" that lie
// within 20 bytes of buf, into dst, until dst is full or another line
// comes. It returns the bytes and lines used, how many of those lines were
// hit, the last line number, and
// whether a line number was not above the one before (the first is
// compared with last; a record whose first line is 0 is then sorted, to
// the same result).
func lcovDARun(buf []byte, dst []lineHit, last uint32) (used, n, hits int, lastOut uint32, unsorted bool) {
	p := 0
	for n < len(dst) && p+20 <= len(buf) {
		a := (*[20]byte)(buf[p : p+20])
		if uint32(a[0])|uint32(a[1])<<8|uint32(a[2])<<16 != 'D'|'A'<<8|':'<<16 {
			break
		}
		x := binary.LittleEndian.Uint64(a[3:11])
		nd := swarDigits(x)
		if uint(nd-1) >= 7 || byte(x>>(8*nd)) != ',' {
			break
		}
		y := binary.LittleEndian.Uint64(a[4+nd : 12+nd])
		k := swarDigits(y)
		if uint(k-1) >= 7 || byte(y>>(8*k)) != '\n' {
			break
		}
		ln := swarParse(x, nd)
		unsorted = unsorted || ln <= last
		last = ln
		hit := (y^0x3030303030303030)&(1<<(8*k)-1) != 0
		dst[n] = lineHit{ln, hit}
		hits += int(b2u(hit))
		n++
		p += 5 + nd + k
	}
	return p, n, hits, last, unsorted
}

// lcovOtherLine is lcovFastDA's path for any line but a plain DA line with
// short numbers that ends within the window: a DA line (da set, its line
// and hit stored) or another record of the open file it skips (FN, FNDA,
// BRDA, LF, LH, ...). It returns the line's length with its "\n", or 0 for
// a line the careful path must read: SF:, end_of_record, anything
// unusual, a line not whole in b.
func lcovOtherLine(b []byte) (adv int, line uint32, hit, da bool) {
	if len(b) < 7 {
		return 0, 0, false, false
	}
	if b[0] != 'D' || b[1] != 'A' || b[2] != ':' {
		if b[0] == 'S' || !lcovFastKey(b) {
			return 0, 0, false, false
		}
		nl := indexNL(b)
		if nl < 0 {
			return 0, 0, false, false
		}
		return nl + 1, 0, false, false
	}
	i := 3
	var ln uint32
	for n := 0; i < len(b) && n < 9; i, n = i+1, n+1 {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		ln = ln*10 + uint32(c)
	}
	if i == 3 || i >= len(b) || b[i] != ',' {
		return 0, 0, false, false
	}
	i++
	j := i
	for i < len(b) && i-j < 20 {
		c := b[i]
		if c < '0' || c > '9' {
			break
		}
		hit = hit || c != '0'
		i++
	}
	if i == j || i >= len(b) || b[i] != '\n' {
		return 0, 0, false, false
	}
	return i + 1, ln, hit, true
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
