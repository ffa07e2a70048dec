package coverage

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"runtime"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lines"
	"github.com/gcloop/gcloop/internal/parse"
)

// FileSink receives the files of a streamed coverage report, one at a time.
type FileSink interface {
	// Add receives one file; each file comes once.
	Add(decide.FileCoverage)
	// Reset forgets the files added so far: the reader starts over and
	// adds every file again.
	Reset()
}

// StreamLCOV reads an LCOV tracefile as ReadLCOV does — the same totals,
// the same errors — but with memory that does not grow with the number of
// distinct source files: each file's coverage goes to sink, once, and the
// returned facts hold the totals and no Files.
//
// It reads r once when every path has one record, as the LCOV tools write
// it: each file goes to sink at the end of its record, and only an 8-byte
// hash of its path is kept. A path met again means a file already added may
// need merging: then the sink is reset and r read again, in two passes. The
// first only looks at the SF: lines, keeping the hash of each path, and
// finds the paths that have more than one record. The second parses
// everything and hands over a file at the end of its record, except those
// paths: their records are merged line by line, as ReadLCOV does, and they
// are handed over at the end. Either way the parse runs in parts over all
// cores when the input is large. A hash collision only costs the second
// reading or makes a file wait for the end; it never changes a result.
func StreamLCOV(name string, r io.ReadSeeker, sink FileSink) (*decide.CoverageFacts, error) {
	return streamLCOV(name, r, sink, lcovSplit{workers: runtime.GOMAXPROCS(0), partSize: lcovPartSize, maxPart: lcovMaxPart, minSize: lcovMinParallel})
}

// streamLCOV is StreamLCOV with its parse in parts as sp says.
func streamLCOV(name string, r io.ReadSeeker, sink FileSink, sp lcovSplit) (*decide.CoverageFacts, error) {
	seed := maphash.MakeSeed()
	t := newLineTally(name)
	t.stream = &lineStream{seed: seed, seen: &hashSet{}, emit: sink.Add}
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		size = -1 // unknown: read in parts
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	c, err := streamLCOVParts(name, r, t, size, sp)
	if !errors.Is(err, errReadAgain) {
		return c, err
	}
	sink.Reset()
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read %s again: %w", name, err)
	}
	return streamLCOVTwice(name, r, sink, seed, sp)
}

// streamLCOVTwice reads r in two passes: the paths with several records
// first, then everything.
func streamLCOVTwice(name string, r io.ReadSeeker, sink FileSink, seed maphash.Seed, sp lcovSplit) (*decide.CoverageFacts, error) {
	counted := lines.NewCapReader(r, math.MaxInt64) // counts the bytes
	repeated, distinct, err := lcovRepeatedPaths(seed, counted, streamBufSize)
	if err != nil {
		return nil, &parse.Error{File: name, Offset: -1, Msg: "read failed", Err: err}
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read %s again: %w", name, err)
	}
	t := newLineTally(name)
	var c *decide.CoverageFacts
	if distinct <= MaxFiles { // past it, the tally reports the error as ReadLCOV does
		t.stream = &lineStream{seed: seed, repeated: repeated, emit: sink.Add}
		c, err = streamLCOVParts(name, r, t, counted.N(), sp)
	} else {
		c, err = readLCOV(name, r, t)
	}
	if err != nil {
		return nil, err
	}
	if t.stream == nil {
		for _, f := range c.Files {
			sink.Add(f)
		}
		c.Files = nil
	}
	return c, nil
}

// errReadAgain stops a reading in one pass that met a path a second time
// (or more than MaxFiles paths): StreamLCOV reads the input again, in two
// passes.
var errReadAgain = errors.New("a path has several records: read in two passes")

// streamBufSize is the read buffer of the first of two passes of StreamLCOV.
const streamBufSize = 1 << 20

// lineStream is the state of a lineTally that emits files as it goes.
type lineStream struct {
	seed maphash.Seed
	// In two passes, repeated holds the hashes of the paths with several
	// records. In one pass it is nil and every record is taken to be its
	// path's only one: seen holds the hashes of the paths emitted so far,
	// and one met again stops the reading with errReadAgain. A part of the
	// input read in one pass has no seen: it lists its hashes in order,
	// which the fold checks against seen.
	repeated map[uint64]bool
	seen     *hashSet
	hashes   []uint64
	emit     func(decide.FileCoverage)
	files    int // files emitted
	covered  int64
	total    int64
}

// claim records the path hash h of a record read in one pass.
func (st *lineStream) claim(h uint64) error {
	if st.seen == nil {
		st.hashes = append(st.hashes, h)
		return nil
	}
	if !st.seen.add(h) || st.seen.n > MaxFiles {
		return errReadAgain
	}
	return nil
}

// lcovRepeatedPaths scans the SF: lines of an LCOV file and returns the
// hashes of the paths named more than once, and how many distinct paths
// there are (counted up to MaxFiles+1). It parses nothing else: the second
// pass reports every error, and stops at any line it cannot read whole.
func lcovRepeatedPaths(seed maphash.Seed, r io.Reader, size int) (map[uint64]bool, int, error) {
	var seen hashSet
	repeated := map[uint64]bool{}
	buf := make([]byte, size)
	carry := 0 // buf[:carry] is the start of a line not read whole
	for {
		n, err := io.ReadFull(r, buf[carry:])
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return nil, 0, err
		}
		data := buf[:carry+n]
		pos := 0 // always at the start of a line
		for pos < len(data) {
			if !bytes.HasPrefix(data[pos:], []byte("SF:")) {
				at := nextSF(data, pos)
				if at < 0 {
					if nl := bytes.LastIndexByte(data[pos:], '\n'); nl >= 0 {
						pos += nl + 1 // keep only the last, incomplete line
					}
					break
				}
				pos = at
				continue
			}
			nl := bytes.IndexByte(data[pos:], '\n')
			if nl < 0 && !eof {
				break // the rest of the line comes with the next read
			}
			line := data[pos:]
			if nl >= 0 {
				line = line[:nl]
			}
			if p := bytes.TrimSpace(line[3:]); len(p) > 0 && seen.n <= MaxFiles {
				if h := maphash.Bytes(seed, p); !seen.add(h) {
					repeated[h] = true
				}
			}
			if nl < 0 {
				pos = len(data)
				break
			}
			pos += nl + 1
		}
		if eof {
			return repeated, seen.n, nil
		}
		carry = copy(buf, data[pos:])
		if carry == len(buf) { // one line fills the buffer
			if len(buf) > MaxLineLen {
				// Too long for the parser, which reports it.
				return repeated, seen.n, nil
			}
			nb := make([]byte, 2*len(buf))
			copy(nb, buf)
			buf = nb
		}
	}
}

// nextSF returns the start of the first line after data[pos] that begins
// with "SF:", or -1. It looks for the rare 'S' (memchr speed), not for the
// frequent '\n'.
func nextSF(data []byte, pos int) int {
	for from := pos + 1; from < len(data); {
		k := bytes.Index(data[from:], []byte("SF:"))
		if k < 0 {
			return -1
		}
		at := from + k
		if data[at-1] == '\n' {
			return at
		}
		from = at + 1
	}
	return -1
}

// hashSet is a set of 64-bit hashes: open addressing, at most half full.
type hashSet struct {
	slots []uint64 // 0 is empty; the hash 0 is kept in zero
	zero  bool
	n     int
}

// add inserts h and reports whether it was new.
func (s *hashSet) add(h uint64) bool {
	if h == 0 {
		if s.zero {
			return false
		}
		s.zero = true
		s.n++
		return true
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}
