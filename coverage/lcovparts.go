package coverage

import (
	"bytes"
	"errors"
	"io"

	"github.com/gcloop/gcloop/decide"
)

// The parse of StreamLCOV in parts, over all cores: the input is cut
// into parts of about lcovPartSize bytes, each ending just before a line
// that starts with "SF:" (or at the end), so no record spans two parts.
// Each part is parsed on a goroutine of its own into a tally of its own; the
// calling goroutine folds the parts in input order: it emits the part's
// files, adds its totals and merges the files that have several records
// into the main tally, as reading line by line does.
//
// A part that fails to parse, one that would bring the merge maps near
// their cap, and a record longer than lcovMaxPart are not folded: from that
// part on, the rest of the input is read line by line into the main tally,
// its lines numbered after those folded. Parts before it all ended outside
// a record, as the line-by-line reader is at their end, so the results and
// errors are exactly those of reading line by line.

const (
	// lcovPartSize is the size parts are cut at.
	lcovPartSize = 1 << 20
	// lcovMaxPart bounds a part that must grow to hold a long record (at
	// most about six parts are in memory at once).
	lcovMaxPart = 2 << 20
	// lcovMinParallel is the smallest input read in parts.
	lcovMinParallel = 4 << 20
)

// lcovPart is one part of the input and what parsing it gave.
type lcovPart struct {
	data []byte // whole lines; starts at the input's start or an SF: line
	buf  []byte // the buffer data lies in, for reuse

	done  chan struct{} // closed when parsed
	tally *lineTally    // its files with several records, and its totals
	files []decide.FileCoverage
	lines int
	err   error

	// Kept when the part is reused: the room its tally took for the
	// lines of a record and for the hashes of its paths.
	cur    []lineHit
	hashes []uint64
}

// reuse readies p, new or parsed and folded, to hold data, which lies in
// buf; err marks a part not to parse.
func (p *lcovPart) reuse(buf, data []byte, err error) *lcovPart {
	p.buf, p.data, p.err = buf, data, err
	p.done = make(chan struct{})
	p.tally, p.files, p.lines = nil, p.files[:0], 0
	return p
}

// lcovSplit is the configuration of a read in parts.
type lcovSplit struct {
	workers  int
	partSize int
	maxPart  int
	minSize  int64 // an input known to be smaller is read line by line
}

// streamLCOVParts is the parse of StreamLCOV: in parts when there are
// several cores and the input is large (or of a size unknown), else line by
// line.
func streamLCOVParts(name string, r io.Reader, t *lineTally, size int64, sp lcovSplit) (*decide.CoverageFacts, error) {
	if sp.workers < 2 || size >= 0 && size < sp.minSize { // -1: size unknown
		return readLCOV(name, r, t)
	}
	return t.readParts(name, r, sp)
}

// readParts reads r in parts into the streaming tally t.
func (t *lineTally) readParts(name string, r io.Reader, sp lcovSplit) (*decide.CoverageFacts, error) {
	ch := &lcovChunker{r: r, sp: sp, stop: make(chan struct{}), ended: make(chan struct{}), pool: make(chan *lcovPart, 2*sp.workers+2)}
	queue := make(chan *lcovPart, sp.workers)
	work := make(chan *lcovPart, sp.workers)
	go ch.run(queue, work)
	for i := 0; i < sp.workers; i++ {
		go func() {
			for p := range work {
				if p.err == nil {
					p.parse(name, t.stream)
				}
				close(p.done)
			}
		}()
	}
	lines := 0
	var bound int64 // bounds the merge maps' memory at any line folded
	for p := range queue {
		<-p.done
		if p.err == nil {
			if pb := 5*p.tally.mergedLines + 16*p.tally.records; bound+pb <= maxMergeBytes {
				bound += pb
				if err := t.fold(p); err != nil {
					ch.halt(queue, nil) // no read of r goes on after the return
					return nil, err
				}
				lines += p.lines
				ch.recycle(p)
				continue
			}
		}
		return t.readRest(name, ch.halt(queue, p), lines)
	}
	if ch.err != nil {
		return t.readRest(name, ch.halt(queue, nil), lines)
	}
	if t.empty() {
		return nil, lcovNoRecord(name, lines+1)
	}
	return t.facts(FormatLCOV), nil
}

// readRest reads the rest of the input line by line into t, its lines
// numbered after the lines before.
func (t *lineTally) readRest(name string, rest io.Reader, before int) (*decide.CoverageFacts, error) {
	s := newLineScanner(name, rest)
	s.SetLine(before)
	if err := parseLCOV(s, t, true); err != nil {
		return nil, err
	}
	return t.facts(FormatLCOV), nil
}

// parse parses the part into a tally of its own that streams into its
// file list, with the main tally's knowledge of repeated paths.
func (p *lcovPart) parse(name string, st *lineStream) {
	t := newLineTally(name)
	t.cur = p.cur[:0]
	t.stream = &lineStream{seed: st.seed, repeated: st.repeated, hashes: p.hashes[:0], emit: func(f decide.FileCoverage) { p.files = append(p.files, f) }}
	s := bytesScanner(name, p.data, 0)
	p.err = parseLCOV(s, t, false)
	p.lines, p.tally = s.Line(), t
	p.cur, p.hashes = t.cur, t.stream.hashes
}

// fold adds a parsed part to t, in input order: its files of one record
// are emitted, its files of several records merged.
func (t *lineTally) fold(p *lcovPart) error {
	st, ps := t.stream, p.tally.stream
	if st.repeated == nil {
		for _, h := range ps.hashes {
			if err := st.claim(h); err != nil {
				return err
			}
		}
	}
	for _, f := range p.files {
		st.emit(f)
	}
	st.files += ps.files
	st.covered += ps.covered
	st.total += ps.total
	var hits []lineHit
	for _, f := range p.tally.files {
		hits = p.tally.sums[f.Path].decode(hits[:0])
		if err := t.merge(f.Path, hits, 0); err != nil { // not within the bound checked
			return err
		}
	}
	return nil
}

// lcovChunker cuts the input into parts.
type lcovChunker struct {
	r     io.Reader
	sp    lcovSplit
	pool  chan *lcovPart // parts folded, for reuse
	stop  chan struct{}  // closed by halt
	ended chan struct{}  // closed when run returns
	carry []byte         // input read and not yet in a part
	err   error          // a read error, after the parts before it
}

// run cuts parts and sends each to queue (in order) and work, until the
// input ends, a read fails or halt stops it.
func (c *lcovChunker) run(queue, work chan<- *lcovPart) {
	defer close(c.ended)
	defer close(work)
	defer close(queue)
	for {
		select {
		case <-c.stop:
			return
		default:
		}
		p, last, err := c.next()
		if err != nil {
			c.err = err
			return
		}
		if p == nil {
			return
		}
		select {
		case queue <- p:
		case <-c.stop:
			c.carry = append(append([]byte(nil), p.data...), c.carry...)
			return
		}
		select {
		case work <- p:
		case <-c.stop:
			return
		}
		if last {
			return
		}
	}
}

// next reads the next part: nil at the end of the input. last is set when
// the part reaches the end. A record longer than maxPart makes the part
// end inside it (the line-by-line reader takes over there).
func (c *lcovChunker) next() (p *lcovPart, last bool, err error) {
	select {
	case p = <-c.pool:
	default:
		p = &lcovPart{buf: make([]byte, c.sp.partSize)}
	}
	buf := p.buf
	if len(c.carry) >= len(buf) { // a long record's start (shorter than maxPart)
		buf = make([]byte, min(2*len(c.carry), c.sp.maxPart))
	}
	n := copy(buf, c.carry)
	c.carry = nil
	for {
		k, err := io.ReadFull(c.r, buf[n:])
		n += k
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			c.carry = append([]byte(nil), buf[:n]...)
			return nil, false, err
		}
		if eof {
			if n == 0 {
				return nil, true, nil
			}
			return p.reuse(buf, buf[:n], nil), true, nil
		}
		if cut := lastSF(buf[:n]); cut > 0 {
			// The carry stays in this buffer, past the part's data: only
			// the chunker writes into buffers, and it copies the carry out
			// first (a copy within one buffer when it is reused at once).
			c.carry = buf[cut:n]
			return p.reuse(buf, buf[:cut], nil), false, nil
		}
		if len(buf) >= c.sp.maxPart {
			// One record fills the part: the line-by-line reader reads
			// on from here (the part fails to fold).
			return p.reuse(buf, buf[:n], errLongRecord), false, nil
		}
		nb := make([]byte, min(2*len(buf), c.sp.maxPart))
		copy(nb, buf[:n])
		buf = nb
	}
}

// errLongRecord marks a part cut inside a record: it is not parsed and
// not folded.
var errLongRecord = errors.New("record longer than a part")

// lastSF returns the start of the last line of b that starts with "SF:"
// (not b's first), or 0.
func lastSF(b []byte) int {
	return bytes.LastIndex(b, []byte("\nSF:")) + 1
}

// recycle returns a folded part for reuse.
func (c *lcovChunker) recycle(p *lcovPart) {
	select {
	case c.pool <- p:
	default:
	}
}

// halt stops the chunker and returns the input from part first on (from
// what the chunker holds when first is nil): the parts queued after it,
// what the chunker read beyond them, then the rest of r or its error.
func (c *lcovChunker) halt(queue <-chan *lcovPart, first *lcovPart) io.Reader {
	close(c.stop)
	var readers []io.Reader
	if first != nil {
		readers = append(readers, bytes.NewReader(first.data))
	}
	for q := range queue { // until the chunker closes it
		readers = append(readers, bytes.NewReader(q.data))
	}
	<-c.ended
	readers = append(readers, bytes.NewReader(c.carry))
	if c.err != nil {
		readers = append(readers, errReader{c.err})
	} else {
		readers = append(readers, c.r)
	}
	return io.MultiReader(readers...)
}
