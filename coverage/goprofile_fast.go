package coverage

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
)

// profPaths says which paths read block lines: all of them (the zero
// value), or, for the differential tests, fewer.
type profPaths uint8

const (
	profAllPaths    profPaths = iota // profBlockRun, then profBlockLine, then blockLine
	profGoRun                        // the same with profBlockRunGo, where profBlockRun is assembly
	profByteLoop                     // profBlockLine, then blockLine
	profCarefulOnly                  // blockLine only
)

// profLineRoom is how many bytes profBlockRun looks at of a block line
// from 4 bytes before the end of the file name: those 4, the numbers
// before the count within 25 bytes, then eight bytes of the count. The
// offsets it reads at are taken modulo 32, so that with 40 bytes the
// compiler needs no bounds checks.
const profLineRoom = 40

// fastBlocks consumes the run of well-formed block lines of the current
// file at the front of the scanner's window, parsing them in place:
// profBlockRun takes the common lines, profBlockLine the others it can. It
// stops, without consuming, at anything else (another file, an incomplete
// or unusual line), leaving it to the careful path with its error
// messages.
func (p *profParser) fastBlocks() {
	if p.paths == profCarefulOnly {
		return
	}
	buf := p.s.Window()
	blocks := p.blocks
	var last [2]uint64 // start and end of the block before
	if n := len(blocks); n > 0 {
		last = [2]uint64{blocks[n-1].start, blocks[n-1].end}
	}
	unsorted := p.unsorted
	used, lines := 0, 0
	for {
		if cap(blocks)-len(blocks) < 256 {
			blocks = slices.Grow(blocks, 256)
		}
		room := blocks[len(blocks):cap(blocks)]
		if p.paths <= profGoRun {
			var u, n int
			var uns bool
			if p.paths == profAllPaths { // called directly, so that last does not escape
				u, n, uns = profBlockRun(buf[used:], p.prefix, room, p.s.Line()+lines, &last)
			} else {
				u, n, uns = profBlockRunGo(buf[used:], p.prefix, room, p.s.Line()+lines, &last)
			}
			blocks = blocks[:len(blocks)+n]
			used += u
			lines += n
			unsorted = unsorted || uns
			if n == len(room) {
				continue
			}
		}
		b, adv, ok := profBlockLine(buf[used:], p.prefix)
		if !ok {
			break
		}
		lines++
		b.line = p.s.Line() + lines
		unsorted = unsorted || b.start < last[0] || b.start == last[0] && b.end <= last[1]
		last = [2]uint64{b.start, b.end}
		blocks = append(blocks, b)
		used += adv
	}
	p.blocks, p.unsorted = blocks, unsorted
	p.s.Consume(used, lines)
}

// profBlockRunGo parses block lines of one file from the start of buf into
// dst until dst is full or a line is not of the form it accepts: pre (the
// file and its colon), then "sl.sc,el.ec stmts count\n" where the first
// five numbers have 1 to 4 digits (leading zeros allowed, as the careful
// path allows them), the count 1 to 7, the block does not end before it
// starts, pre is at least 16 bytes and at least profLineRoom-4 bytes of
// buf follow it. Such a line holds no other colon, so its file is exactly
// pre's; the careful path reads it to the same block.
//
// No step of a line waits for the length of a number before it: the
// separators come at once from a mask of the bytes that are not digits
// (profNonDigits), and the numbers are read in pairs, eight bytes at a
// time (profPair). The loop has no branch that depends on the digits.
//
// line is the number of the line before buf's first; last holds the start
// and end of the block before (zero when none, which at worst marks a run
// of blocks unsorted that is not: sorting it changes nothing) and is
// updated. It returns the bytes consumed, the blocks read, and whether one
// of them was not after the one before it.
func profBlockRunGo(buf, pre []byte, dst []profBlock, line int, last *[2]uint64) (used, n int, unsorted bool) {
	np := len(pre)
	if np < 16 {
		return 0, 0, false
	}
	// The prefix's first and last 16 bytes, which are all of it when it
	// is no longer than 32 bytes.
	w0, w1 := binary.LittleEndian.Uint64(pre[0:8]), binary.LittleEndian.Uint64(pre[8:16])
	w2, w3 := binary.LittleEndian.Uint64(pre[np-16:np-8]), binary.LittleEndian.Uint64(pre[np-8:np])
	p := 0
	end := len(buf) - np - profLineRoom + 4 // the last p with room
	l1, l2 := last[0], last[1]
	for ; n < len(dst) && p <= end; n++ {
		q := buf[p : p+np]
		if binary.LittleEndian.Uint64(q[0:8])^w0|binary.LittleEndian.Uint64(q[8:16])^w1|
			binary.LittleEndian.Uint64(q[np-16:np-8])^w2|binary.LittleEndian.Uint64(q[np-8:np])^w3 != 0 ||
			np > 32 && !bytes.Equal(q[16:np-16], pre[16:np-16]) {
			break
		}
		// a[4:] is the line after the file name's colon.
		a := (*[profLineRoom]byte)(buf[p+np-4 : p+np-4+profLineRoom])
		m := profNonDigits(binary.LittleEndian.Uint64(a[4:12])) |
			profNonDigits(binary.LittleEndian.Uint64(a[12:20]))<<8 |
			profNonDigits(binary.LittleEndian.Uint64(a[20:28]))<<16 | 1<<24
		// The separators after the first five numbers, at a[4+s]; when
		// there are fewer than five non-digits in 24 bytes, s5 is 24, and
		// the byte there is checked like the others.
		// (The high bit, past the sentinel, only tells the compiler
		// that no mask is zero.)
		s1 := bits.TrailingZeros64(m)
		m &= m - 1
		s2 := bits.TrailingZeros64(m | 1<<63)
		m &= m - 1
		s3 := bits.TrailingZeros64(m | 1<<63)
		m &= m - 1
		s4 := bits.TrailingZeros64(m | 1<<63)
		m &= m - 1
		s5 := bits.TrailingZeros64(m | 1<<63)
		d2, d3, d4, d5 := s2-s1-1, s3-s2-1, s4-s3-1, s5-s4-1
		if uint(s1-1)|uint(d2-1)|uint(d3-1)|uint(d4-1)|uint(d5-1) > 3 { // each 1..4 digits
			break
		}
		c := (*[profLineRoom - 4]byte)(a[4:]) // the line after the colon
		seps := uint64(c[s1&31]) | uint64(c[s2&31])<<8 | uint64(c[s3&31])<<16 |
			uint64(c[s4&31])<<24 | uint64(c[s5&31])<<32
		if seps != '.'|','<<8|'.'<<16|' '<<24|' '<<32 {
			break
		}
		// The count: 1 to 7 digits and the end of the line.
		x := binary.LittleEndian.Uint64(c[(s5+1)&31:])
		d := swarDigits(x)
		if uint(d-1) >= 7 || byte(x>>(8*(d&7))) != '\n' {
			break
		}
		// Each number is read from the 4 bytes that end at its separator.
		start := profPair(uint64(profLane(a, s1, s1))<<32 | uint64(profLane(a, s2, d2)))
		end := profPair(uint64(profLane(a, s3, d3))<<32 | uint64(profLane(a, s4, d4)))
		if end < start {
			break // the careful path's error
		}
		if start < l1 || start == l1 && end <= l2 {
			unsorted = true
		}
		l1, l2 = start, end
		line++
		b := &dst[n]
		b.start, b.end = start, end
		b.stmts = uint32(profPair(uint64(profLane(a, s5, d5))))
		b.hit = (x^0x3030303030303030)&profLow[d&7] != 0
		b.line = line
		p += np + s5 + d + 2
	}
	last[0], last[1] = l1, l2
	return p, n, unsorted
}

// profLow holds masks of the low d bytes of a word.
var profLow = [8]uint64{0, 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1}

// profLaneMask keeps the last d (1..4) bytes of four, as values 0..9 when
// they are digits.
var profLaneMask = [4]uint32{0x0f000000, 0x0f0f0000, 0x0f0f0f00, 0x0f0f0f0f}

// profLane returns the d (1..4) digits that end at a[4+s] as values 0..9
// in the top d bytes of a 32-bit lane, zero bytes (leading zeros) below.
func profLane(a *[profLineRoom]byte, s, d int) uint32 {
	return binary.LittleEndian.Uint32(a[s&31:]) & profLaneMask[(d-1)&3]
}

// profNonDigits returns a mask of the bytes of x (little-endian: bit i for
// the i-th byte) that are not ASCII digits. Unlike swarDigits it is exact
// for every byte: no carry crosses a byte.
func profNonDigits(x uint64) uint64 {
	t := x ^ 0x3030303030303030 // digits become 0..9
	// The high bit of a byte is set when t >= 0x80, or when t+0x76 >= 0x80,
	// that is t >= 10; (t & 0x7f) + 0x76 never exceeds 0xff.
	h := ((t & 0x7f7f7f7f7f7f7f7f) + 0x7676767676767676 | t) & 0x8080808080808080
	// Gather the eight high bits into the top byte: each lands on a bit of
	// its own, and no two partial products overlap.
	return (h >> 7) * 0x0102040810204080 >> 56
}

// profPair returns the values of the two lanes of profLane digits in x, as
// high<<32 | low.
func profPair(x uint64) uint64 {
	// Each byte k becomes 10*b[k] + b[k+1]: bytes 0, 2, 4 and 6 hold the
	// digit pairs (at most 99, so nothing carries); then each lane's two
	// pairs become 100*pair0 + pair1 in its upper 16 bits.
	x = (x*10 + x>>8) & 0x00ff00ff00ff00ff
	return x * (1 + 100<<16) >> 16 & 0x0000ffff0000ffff
}

// profBlockLine reads one block line of the file of pre at the start of
// buf with the byte loop of profNum: numbers of at most 10 digits (and
// 1<<31), the line whole in buf. It returns the block, without its line,
// and the line's length with its "\n"; ok is false for any other line.
func profBlockLine(buf, pre []byte) (b profBlock, adv int, ok bool) {
	if len(buf) <= len(pre) || !bytes.Equal(buf[:len(pre)], pre) {
		return b, 0, false
	}
	var sl, sc, el, ec, count uint32
	i := len(pre)
	if sl, i, ok = profNum(buf, i, '.'); !ok {
		return b, 0, false
	}
	if sc, i, ok = profNum(buf, i, ','); !ok {
		return b, 0, false
	}
	if el, i, ok = profNum(buf, i, '.'); !ok {
		return b, 0, false
	}
	if ec, i, ok = profNum(buf, i, ' '); !ok {
		return b, 0, false
	}
	if b.stmts, i, ok = profNum(buf, i, ' '); !ok {
		return b, 0, false
	}
	if count, i, ok = profNum(buf, i, '\n'); !ok {
		return b, 0, false
	}
	b.start, b.end, b.hit = uint64(sl)<<32|uint64(sc), uint64(el)<<32|uint64(ec), count > 0
	if b.end < b.start {
		return b, 0, false
	}
	return b, i, true
}

// profNum reads the number of at most 10 digits and at most 1<<31 at
// buf[i:], which sep must follow; it returns the number and the index after
// sep. ok is false for anything else: a longer count, say, takes the
// careful path.
func profNum(buf []byte, i int, sep byte) (v uint32, next int, ok bool) {
	j := i
	var x uint64
	for ; i < len(buf) && i-j < 10; i++ {
		c := buf[i] - '0'
		if c > 9 {
			break
		}
		x = x*10 + uint64(c)
	}
	if i == j || i >= len(buf) || buf[i] != sep || x > 1<<31 {
		return 0, i, false
	}
	return uint32(x), i + 1, true
}
