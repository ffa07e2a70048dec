package coverage

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// Sizes of the parts a large Go profile is cut into for parsing on
// several cores.
const (
	// profChunkSize is the size a part starts at; an input no larger is
	// read line by line on the calling goroutine.
	profChunkSize = 256 << 10
	// profMaxChunk is how far a part grows looking for a line where the
	// file changes; past it, the rest of the input is read line by line.
	profMaxChunk = 4 << 20
)

// profSplit says how a profile is cut: parts of chunk bytes (grown up to
// maxChunk to reach a file boundary) parsed by workers goroutines; fewer
// than two workers read the profile line by line.
type profSplit struct {
	workers, chunk, maxChunk int
	paths                    profPaths // the paths that read block lines (tests)
}

// profPart is one part of a profile. Every part but the last holds whole
// lines and ends where the next line names another file than its last
// line, so that no run of blocks spans two parts; it is parsed on its own,
// with line numbers counted from the part's start, into events that the
// caller folds in input order. The last part (tail) is the rest of the
// input, parsed by the caller itself.
type profPart struct {
	idx  int
	buf  []byte    // data's buffer
	data []byte    // whole lines; for the last part, all of it when tail is nil
	last bool      // the last part
	tail io.Reader // the rest of the input, when not all in data (the last part)

	done   chan struct{} // closed when the fields below are set
	segs   [][]profEvent // events, in segments of profSegment
	used   int           // segments in use
	stmts  []uint32      // the runs' statements per block, end to end
	lines  int           // lines in data
	opened bool          // a block line was accepted: the part's first line
	err    error         // the first error, with line numbers relative to the part

	final    profRun // the run the part ends with, closed by the next part
	hasFinal bool
	finalOff int   // of final's statements in stmts
	finalErr error // closing final failed
}

// profEvent is a mode line or a run of blocks read from a part, in few
// bytes: a part of a megabyte can hold tens of thousands.
type profEvent struct {
	file           string // the run's file, or the mode of a mode line (n < 0)
	bits           []uint64
	hash           uint64
	total, covered int64
	line, n, hits  int32 // line relative to the part's start
	off            int32 // of the run's statements in the part's stmts
}

// profSegment is how many events a segment of a part's events holds: they
// are kept in segments, not one growing slice, so that no event is copied
// and nothing is allocated twice.
const profSegment = 1024

func (c *profPart) push(ev profEvent) {
	if c.used == 0 || len(c.segs[c.used-1]) == profSegment {
		if c.used == len(c.segs) {
			c.segs = append(c.segs, make([]profEvent, 0, profSegment))
		}
		c.segs[c.used] = c.segs[c.used][:0]
		c.used++
	}
	c.segs[c.used-1] = append(c.segs[c.used-1], ev)
}

// mode and run make a part the sink of its parser.
func (c *profPart) mode(m []byte, line int) error {
	c.push(profEvent{file: string(m), line: int32(line), n: -1})
	return nil
}

func (c *profPart) run(r *profRun) error {
	c.push(profEvent{file: r.file, bits: r.bits, hash: r.hash, total: r.total, covered: r.covered,
		line: int32(r.line), n: int32(r.n), hits: int32(r.hits), off: int32(len(c.stmts))})
	c.stmts = append(c.stmts, r.stmts...)
	return nil
}

// parse reads the part with p, lines counted from base, into sink. It
// returns the first error, including one closing the run the part ends
// with.
func (c *profPart) parse(name string, p *profParser, base int, sink profSink) error {
	p.reset(bytesScanner(name, c.data, base), sink, c.idx > 0)
	c.err = p.parse()
	c.lines, c.opened = p.s.Line()-base, p.opened
	if c.err != nil || p.cur == "" {
		return c.err
	}
	var r profRun
	if c.finalErr = p.finish(&r); c.finalErr != nil {
		return c.finalErr
	}
	c.final, c.finalOff, c.hasFinal = r, len(c.stmts), true
	c.final.stmts = nil
	c.stmts = append(c.stmts, r.stmts...)
	return nil
}

// exact returns the part's error with exact line numbers: it parses the
// part again, its lines counted from base (errors are rare; the first
// parse does not know base).
func (c *profPart) exact(name string, base int) error {
	rerun := profPart{idx: c.idx, data: c.data}
	var p profParser
	if err := rerun.parse(name, &p, base, profDiscard{}); err != nil {
		return err
	}
	if c.err != nil {
		return c.err
	}
	return c.finalErr
}

// profDiscard is a sink that drops everything.
type profDiscard struct{}

func (profDiscard) mode([]byte, int) error { return nil }
func (profDiscard) run(*profRun) error     { return nil }

// reset prepares p to parse another input, keeping its buffers.
func (p *profParser) reset(s *lineScanner, sink profSink, modeSeen bool) {
	*p = profParser{s: s, sink: sink, modeSeen: modeSeen, paths: p.paths, prefix: p.prefix[:0], blocks: p.blocks[:0], stmts: p.stmts[:0], words: p.words[:0]}
}

// mode and run make the tally the sink of a parser whose line numbers are
// those of the profile.
func (t *profTally) mode(m []byte, line int) error { return t.addMode(m, line) }
func (t *profTally) run(r *profRun) error          { return t.addRun(r, 0) }

// read reads a whole profile: in parts over sp.workers goroutines when it
// is larger than one part, else line by line.
func (t *profTally) read(r io.Reader, sp profSplit) error {
	t.paths = sp.paths
	if sp.workers < 2 {
		return t.readTail(&profPart{last: true, tail: r}, 0, nil)
	}
	ch := &profChunker{r: r, sp: sp, pool: make(chan *profPart, 2*sp.workers+2)}
	first := ch.next()
	if first.last {
		return t.readTail(first, 0, nil)
	}
	return t.readParts(ch, first)
}

// readTail parses the last part (or the whole profile) on the calling
// goroutine, its lines numbered from base+1; pending folds the run the
// part before ended with.
func (t *profTally) readTail(c *profPart, base int, pending func() error) error {
	var s *lineScanner
	if c.tail == nil {
		s = bytesScanner(t.name, c.data, base)
	} else {
		s = newLineScanner(t.name, io.MultiReader(bytes.NewReader(c.data), c.tail))
		s.SetLine(base)
	}
	p := profParser{s: s, sink: t, modeSeen: t.modes != nil, pending: pending, paths: t.paths}
	if err := p.parse(); err != nil {
		return err
	}
	return p.end()
}

// readParts parses the parts of a profile on sp.workers goroutines while
// the chunker cuts the next ones, and folds their events in input order.
func (t *profTally) readParts(ch *profChunker, first *profPart) error {
	slots := cap(ch.pool)
	quit := make(chan struct{})
	order := make(chan *profPart, slots)
	work := make(chan *profPart, slots)
	sem := make(chan struct{}, slots)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(order)
		part := first
		for idx := 0; ; idx++ {
			part.idx = idx
			select {
			case sem <- struct{}{}:
			case <-quit:
				return
			}
			select {
			case order <- part:
			case <-quit:
				return
			}
			if part.last {
				return
			}
			select {
			case work <- part:
			case <-quit:
				return
			}
			part = ch.next()
		}
	}()
	for range ch.sp.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := profParser{paths: t.paths}
			for c := range work {
				c.parse(t.name, &p, 0, c)
				close(c.done)
			}
		}()
	}
	err := t.fold(order, sem, ch)
	close(quit)
	wg.Wait()
	return err
}

// fold folds the parts' events in input order, adding to each line number
// the lines of the parts before.
func (t *profTally) fold(order <-chan *profPart, sem <-chan struct{}, ch *profChunker) error {
	base := 0
	var prev *profPart // its final run is not folded yet
	prevBase := 0
	foldPrev := func() error {
		c, b := prev, prevBase
		prev = nil
		defer func() {
			ch.recycle(c)
			<-sem
		}()
		switch {
		case c.finalErr != nil:
			return c.exact(t.name, b)
		case c.hasFinal:
			c.final.stmts = c.stmts[c.finalOff : c.finalOff+c.final.n]
			return t.addRun(&c.final, b)
		}
		return nil
	}
	for c := range order {
		if c.last {
			var pending func() error
			if prev != nil {
				pending = foldPrev
			}
			return t.readTail(c, base, pending)
		}
		<-c.done
		if c.err != nil && !c.opened { // its first line is bad: prev's run is never closed
			return c.exact(t.name, base)
		}
		if prev != nil {
			if err := foldPrev(); err != nil {
				return err
			}
		}
		for _, seg := range c.segs[:c.used] {
			for i := range seg {
				ev := &seg[i]
				var err error
				if ev.n < 0 {
					err = t.addMode([]byte(ev.file), base+int(ev.line))
				} else {
					r := profRun{file: ev.file, line: int(ev.line), hash: ev.hash, n: int(ev.n), hits: int(ev.hits),
						total: ev.total, covered: ev.covered, bits: ev.bits, stmts: c.stmts[ev.off : int(ev.off)+int(ev.n)]}
					err = t.addRun(&r, base)
				}
				if err != nil {
					return err
				}
			}
		}
		if c.err != nil {
			return c.exact(t.name, base)
		}
		prev, prevBase = c, base
		base += c.lines
	}
	return errors.New("internal error: the parts of the Go profile ended without its last part")
}

// profChunker cuts a profile into parts.
type profChunker struct {
	r       io.Reader
	sp      profSplit
	pool    chan *profPart // parts done with, their buffers of sp.chunk bytes reused
	carry   *profPart      // the next part, its buffer holding the start read with the last one
	carried int            // bytes in carry's buffer
}

// next reads the next part: whole lines up to a line where the file
// changes, or, at the end of the input, on a read error or when no file
// boundary comes within sp.maxChunk bytes, the tail: everything left.
func (c *profChunker) next() *profPart {
	part, n := c.carry, c.carried
	if part == nil {
		part = c.get(0)
	}
	c.carry, c.carried = nil, 0
	buf := part.buf
	for {
		m, err := io.ReadFull(c.r, buf[n:])
		n += m
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			part.data, part.last = buf[:n], true
			return part
		case err != nil:
			part.data, part.last, part.tail = buf[:n], true, errReader{err}
			return part
		}
		if cut := profCut(buf[:n]); cut > 0 {
			c.carry = c.get(n - cut)
			c.carried = copy(c.carry.buf, buf[cut:n])
			part.buf, part.data, part.done = buf, buf[:cut], make(chan struct{})
			return part
		}
		if len(buf) >= c.sp.maxChunk {
			part.data, part.last, part.tail = buf[:n], true, c.r
			return part
		}
		grown := make([]byte, 2*len(buf))
		copy(grown, buf[:n])
		buf = grown
	}
}

// get returns an empty part whose buffer holds more than n bytes.
func (c *profChunker) get(n int) *profPart {
	if n >= c.sp.chunk {
		return &profPart{buf: make([]byte, 2*n)}
	}
	select {
	case p := <-c.pool:
		*p = profPart{buf: p.buf, segs: p.segs, stmts: p.stmts[:0]}
		return p
	default:
		return &profPart{buf: make([]byte, c.sp.chunk)}
	}
}

// recycle keeps a part done with, if its buffer has the usual size.
func (c *profChunker) recycle(p *profPart) {
	if len(p.buf) != c.sp.chunk {
		return
	}
	select {
	case c.pool <- p:
	default:
	}
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// profCut returns where the last line of data that starts another file
// than the line before begins (both lines neither blank nor mode lines),
// or -1. Only whole lines (up to the last "\n") are looked at. The last
// run of one file's lines is found by bisection; when that finds no
// valid cut, the lines are walked back one by one.
func profCut(data []byte) int {
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return -1
	}
	last := bytes.LastIndexByte(data[:end], '\n') + 1
	file, ok := profCutFile(data[last:end])
	if !ok || last == 0 {
		return profCutWalk(data, end)
	}
	// Bisect between the first line (not of file, else walk) and the last
	// line (of file) for two adjacent lines, the first not of file and the
	// second of it.
	isFile := func(at int) bool {
		e := at + bytes.IndexByte(data[at:end+1], '\n')
		f, ok := profCutFile(data[at:e])
		return ok && bytes.Equal(f, file)
	}
	lo, hi := 0, last
	if isFile(lo) {
		return profCutWalk(data, end)
	}
	for {
		mid := lo + (hi-lo)/2
		m := mid + bytes.IndexByte(data[mid:hi], '\n') + 1 // the line after the one mid is in
		if m <= lo || m >= hi {
			m = bytes.LastIndexByte(data[:mid], '\n') + 1 // the line mid is in
			if m <= lo {
				break // lo and hi are adjacent
			}
		}
		if isFile(m) {
			hi = m
		} else {
			lo = m
		}
	}
	if f, ok := profCutFile(data[lo : hi-1]); ok && !bytes.Equal(f, file) {
		return hi
	}
	return profCutWalk(data, end)
}

// profCutWalk is profCut walking the lines back from the one ending at
// end.
func profCutWalk(data []byte, end int) int {
	next := -1 // start of the line after the one looked at, when cuttable
	var nextFile []byte
	for end >= 0 {
		start := bytes.LastIndexByte(data[:end], '\n') + 1
		file, ok := profCutFile(data[start:end])
		if ok && next >= 0 && !bytes.Equal(file, nextFile) {
			return next
		}
		next, nextFile = -1, nil
		if ok {
			next, nextFile = start, file
		}
		end = start - 1
	}
	return -1
}

// profCutFile returns the file of a block line; ok is false for blank
// lines, mode lines and lines without a file.
func profCutFile(line []byte) (file []byte, ok bool) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) == 0 || bytes.HasPrefix(line, []byte("mode:")) {
		return nil, false
	}
	colon := bytes.LastIndexByte(line, ':')
	if colon <= 0 {
		return nil, false
	}
	return line[:colon], true
}
