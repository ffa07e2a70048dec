package evidence

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
)

// Reading a results array on all cores. The scanning goroutine does not
// scan the results: it hands the array's bytes out as they are, in parts
// of about sarifPart bytes, each ending where the next result seems to
// start (jsonscan.ElemStart: the first result's opening bytes, such as
// `{"ruleId"`, after `},`). Workers read each part with a Span scanner,
// result after result from its start, and prepare them for filing
// (message, severity, fingerprint); the scanning goroutine then commits
// the prepared results in document order (counts, dedupe, ranking), as
// readResultsFrom would have filed them one at a time.
//
// A part's results count only once the part before it was read to
// exactly its start, so the first part (from the '[') vouches for the
// second, and so on: a cut that only looked like a result's start (within
// a string, within a nested array) makes the part before it stop at the
// result it cuts in two. Wherever a part stops — that, a result a worker
// cannot read (invalid JSON, a value of the wrong type: anything with an
// error, which readResultsFrom reports with its own wording and offset),
// the end of the input or a failed read, a result longer than
// sarifMaxPart — the stream scanner is handed back the bytes from before
// that result (jsonscan.Rewind) and readResultsFrom reads on from there
// exactly as if it had read from the start. The results committed before
// it are those readResultsFrom would have filed, and a filing error among
// them comes first, as it does there. The bytes after the array's ']' go
// back to the stream scanner the same way.
//
// It is used only once the run's tool was read (results held back for
// their rules are filed in order by readResultsFrom), and the run's state
// the workers read (rules, bases) does not change until they are done.

// Sizes of the split reading.
const (
	// sarifPart is the bytes a part holds at least, but for the last.
	sarifPart = 128 << 10
	// sarifMaxPart caps a part where no result seems to start: it ends
	// there, and the stream scanner reads the result it cuts.
	sarifMaxPart = 4 << 20
	// sarifLookBack is how far before a part's end its cut is looked for
	// first.
	sarifLookBack = 4 << 10
)

// sarifPartOf is a part of a results array: its bytes, from file offset
// base, and what a worker read of them.
type sarifPartOf struct {
	base  int64
	data  []byte
	first bool // the first part: it starts right after the '['
	last  bool // the input ended (or failed) at its end
	done  chan struct{}

	// What the worker read: the prepared results, then how the part
	// ended. lastEnd is where the last result read ends (in data); stopPre
	// is where the stream scanner must read on from when it stopped (in
	// data; -1 for the end of the part before).
	items   []sarifPrepItem
	texts   []byte       // the message texts of items (borrowText)
	ended   jsonscan.Sep // SepSpanEnd, SepClose or SepStop
	closeAt int          // SepClose: just after the ']'
	stopPre int          // SepStop
	lastEnd int
}

// sarifPrepItem is a result prepared for filing, with where it ends.
type sarifPrepItem struct {
	p   sarifPrepared
	end int64
}

// readResultsSplit reads and files the results of an array whose '[' was
// consumed, in parts on sr.workers goroutines.
func (sr *sarifReader) readResultsSplit(run *sarifRun, what string) error {
	s := sr.sc
	first := &sarifPartOf{base: s.Off(), first: true}
	var err error
	first.data, err = s.ReadRaw(nil, sr.part)
	first.last = err != nil
	prefix, ok := jsonscan.ElemPrefix(first.data)
	for !ok && !first.last && len(first.data) < 4096 { // a part size below a result's opening
		first.data, err = s.ReadRaw(first.data, 256)
		first.last = err != nil
		prefix, ok = jsonscan.ElemPrefix(first.data)
	}
	if !ok {
		// No start to look for: read it all one at a time.
		s.Rewind([][]byte{first.data}, first.base)
		return sr.readResultsFrom(run, what, 0)
	}

	inflight := 2*sr.workers + 1
	work := make(chan *sarifPartOf, inflight+1)
	var wg sync.WaitGroup
	for w := 0; w < sr.workers; w++ {
		wg.Add(1)
		h := sr.keep.seen.hasher()
		go func() {
			defer wg.Done()
			sr.readParts(run, work, h)
		}()
	}
	stop := func() {
		close(work)
		wg.Wait()
	}

	var queue, free []*sarifPartOf
	var prev *sarifPartOf // the part committed last
	next := 0             // the index of the next result to commit
	p := first
	for {
		// Cut p where a result seems to start, and carry what follows
		// over to the next part.
		var carry *sarifPartOf
		if !p.last {
			carry, err = sr.cutPart(p, prefix, &free)
			if err != nil {
				p.last = true
			}
		}
		p.done = make(chan struct{})
		work <- p
		queue = append(queue, p)
		for len(queue) > inflight || carry == nil && len(queue) > 0 {
			q := queue[0]
			<-q.done
			sr.keep.seen.warm(q.items)
			for k := range q.items {
				it := &q.items[k]
				if err := sr.commit(run, &it.p, it.end); err != nil {
					stop()
					return sarifPrefix(err, fmt.Sprintf("%s[%d]", what, next+k))
				}
			}
			next += len(q.items)
			// The bytes from there on: the parts queued and the one
			// being cut.
			held := queue
			if carry != nil {
				held = append(held, carry)
			}
			switch q.ended {
			case jsonscan.SepClose:
				stop()
				s.Rewind(partBytes(held, q.closeAt), q.base+int64(q.closeAt))
				return nil
			case jsonscan.SepStop:
				stop()
				if q.stopPre < 0 { // from the end of the part before
					q, held = prev, append([]*sarifPartOf{prev}, held...)
					q.stopPre = q.lastEnd
				}
				s.Rewind(partBytes(held, q.stopPre), q.base+int64(q.stopPre))
				return sr.readResultsFrom(run, what, next)
			}
			if prev != nil {
				free = append(free, prev)
			}
			prev, queue = q, queue[1:]
		}
		if carry == nil {
			// Not reached: the last part ends with its ']' or stops
			// (readPart never ends it at a result's start).
			stop()
			return errors.New("evidence: the parts of a SARIF results array ended without an end")
		}
		p = carry
	}
}

// cutPart ends p where the next result seems to start, reading on until
// one does (up to sarifMaxPart), and returns the part that starts there
// with the bytes after it; nil and the error when the input ended first.
func (sr *sarifReader) cutPart(p *sarifPartOf, prefix []byte, free *[]*sarifPartOf) (*sarifPartOf, error) {
	// Look near the end first, so that little is carried over to the
	// next part (a result of a linter is a few hundred bytes).
	from := max(len(p.data)-sarifLookBack, min(len(p.data), sr.part/2))
	for {
		if at := jsonscan.ElemStart(p.data, prefix, max(from-len(prefix), 0)); at > 0 {
			var c *sarifPartOf
			if n := len(*free); n > 0 {
				c, *free = (*free)[n-1], (*free)[:n-1]
				*c = sarifPartOf{data: c.data[:0], items: c.items[:0], texts: c.texts[:0]}
			} else {
				c = &sarifPartOf{}
			}
			c.base = p.base + int64(at)
			c.data = append(c.data, p.data[at:]...)
			p.data = p.data[:at]
			var err error
			if need := sr.part - len(c.data); need > 0 {
				c.data, err = sr.sc.ReadRaw(c.data, need)
			}
			c.last = err != nil
			return c, nil
		}
		if len(p.data) >= sarifMaxPart {
			// No start in sight: the part ends here, and the stream
			// scanner reads the result it cuts.
			c := &sarifPartOf{base: p.base + int64(len(p.data))}
			var err error
			c.data, err = sr.sc.ReadRaw(nil, sr.part)
			c.last = err != nil
			return c, nil
		}
		from = len(p.data)
		var err error
		if p.data, err = sr.sc.ReadRaw(p.data, sr.part); err != nil {
			return nil, err
		}
	}
}

// partBytes is the bytes of the parts in queue from offset from of the
// first on.
func partBytes(queue []*sarifPartOf, from int) [][]byte {
	out := [][]byte{queue[0].data[from:]}
	for _, p := range queue[1:] {
		out = append(out, p.data)
	}
	return out
}

// readParts reads the parts it is handed and prepares their results,
// until work is closed.
func (sr *sarifReader) readParts(run *sarifRun, work <-chan *sarifPartOf, h decide.DedupeHasher) {
	w := &sarifReader{name: sr.name, sc: jsonscan.Span(sr.name, nil, 0)}
	for p := range work {
		w.readPart(run, p, &h)
		close(p.done)
	}
}

// readPart reads the results of a part, from its start (just after the
// '[' for the first part, else the start of a result) to where a result
// would start at its end, the array's ']', or where it must stop.
func (w *sarifReader) readPart(run *sarifRun, p *sarifPartOf, h *decide.DedupeHasher) {
	s := w.sc
	s.ResetSpan(p.data, p.base)
	p.items, p.texts, p.lastEnd = p.items[:0], p.texts[:0], 0
	w.texts = &p.texts
	at := func() int { return len(p.data) - s.Rest() }
	for n := 0; ; n++ {
		pre := -1 // a part after the first starts with a result
		if n > 0 || p.first {
			pre = at()
			switch sep := s.ElemSep(n == 0); sep {
			case jsonscan.SepElem:
			case jsonscan.SepClose:
				p.ended, p.closeAt = sep, at()
				return
			case jsonscan.SepSpanEnd:
				if !p.last {
					p.ended = sep
					return
				}
				p.ended, p.stopPre = jsonscan.SepStop, pre
				return
			default:
				p.ended, p.stopPre = jsonscan.SepStop, pre
				return
			}
		}
		start := s.Off()
		res, err := w.readResult()
		if err != nil {
			// The stream scanner reads it again, and reports the error
			// — or reads it whole where the part cut it.
			p.ended, p.stopPre = jsonscan.SepStop, pre
			return
		}
		p.items = append(p.items, sarifPrepItem{end: s.Off()})
		w.prepare(&p.items[len(p.items)-1].p, run, &res, start, h)
		p.lastEnd = at()
	}
}
