package evidence

import (
	"fmt"
	"sync"

	"github.com/gcloop/gcloop/internal/jsonscan"
)

// Reading a results array on all cores. The scanning goroutine only cuts
// the array into parts of about sarifPart bytes of whole results
// (jsonscan's CutElems: by braces, brackets and strings, nothing
// validated), which workers read result by result, each with a Span
// scanner over the result's bytes, and prepare for filing (message,
// severity, fingerprint); the scanning goroutine then commits the prepared
// results in document order (counts, dedupe, ranking), as readResultsFrom
// would have filed them one at a time.
//
// Whatever this path cannot read plainly goes to readResultsFrom, which
// reads from that result on exactly as if it had read from the start: a
// result that is not an object, nested deeper than CutElems follows or
// longer than sarifMaxResult, the end of the input or a failed read before
// a result ends, or a result a worker cannot read (invalid JSON, a value of
// the wrong type: anything with an error, which readResultsFrom reports
// with its own wording and offset). The results committed before it are
// those readResultsFrom would have filed before it, and a filing error
// among them comes first, as it does there. It is used only once the
// run's tool was read (results held back for their rules are filed in
// order by readResultsFrom), and the run's state the workers read (rules,
// bases) does not change until they are done.

// Sizes of the split reading.
const (
	// sarifPart is the bytes of results a part holds at least.
	sarifPart = 128 << 10
	// sarifMaxResult is the longest result cut out; a longer one is
	// read by readResultsFrom.
	sarifMaxResult = 1 << 20
)

// sarifPartOf is a part of a results array: its bytes, from file offset
// base, and its results, from index first, read and prepared by a worker.
type sarifPartOf struct {
	base  int64
	first int
	data  []byte
	spans []jsonscan.RawSpan
	items []sarifPrepItem
	fail  int // the first result the worker could not read; len(spans) if none
	done  chan struct{}
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
	next, cutFirst := 0, true // the next result to cut
	for {
		var p *sarifPartOf
		if n := len(free); n > 0 {
			p, free = free[n-1], free[:n-1]
		} else {
			p = &sarifPartOf{}
		}
		p.base, p.first = s.Off(), next
		var st jsonscan.CutStatus
		p.data, p.spans, st = s.CutElems(p.data[:0], p.spans[:0], cutFirst, sr.part, sarifMaxResult)
		next += len(p.spans)
		cutFirst = cutFirst && len(p.spans) == 0
		p.done = make(chan struct{})
		work <- p
		queue = append(queue, p)
		for len(queue) > inflight || st != jsonscan.CutMore && len(queue) > 0 {
			q := queue[0]
			<-q.done
			sr.keep.seen.warm(q.items[:q.fail])
			for k := 0; k < q.fail; k++ {
				it := &q.items[k]
				if err := sr.commit(run, &it.p, it.end); err != nil {
					stop()
					return sarifPrefix(err, fmt.Sprintf("%s[%d]", what, q.first+k))
				}
			}
			if q.fail < len(q.spans) {
				// Read from the result the worker could not read on.
				stop()
				return sr.rewindResults(run, what, queue, q.fail)
			}
			queue = queue[1:]
			if st == jsonscan.CutMore {
				free = append(free, q)
			}
		}
		switch st {
		case jsonscan.CutEnd:
			stop()
			return nil
		case jsonscan.CutStop:
			// Read from the result that could not be cut on.
			stop()
			return sr.rewindResults(run, what, []*sarifPartOf{p}, len(p.spans))
		}
	}
}

// rewindResults reads the results array from result k of queue[0] on with
// readResultsFrom, handing back to the scanner the bytes of the parts in
// queue from there.
func (sr *sarifReader) rewindResults(run *sarifRun, what string, queue []*sarifPartOf, k int) error {
	sr.rewinds++
	q := queue[0]
	from := 0
	if k > 0 {
		from = q.spans[k-1].End
	}
	prefix := [][]byte{q.data[from:]}
	for _, p := range queue[1:] {
		prefix = append(prefix, p.data)
	}
	sr.sc.Rewind(prefix, q.base+int64(from))
	return sr.readResultsFrom(run, what, q.first+k)
}

// readParts reads the parts it is handed and prepares their results,
// until work is closed.
func (sr *sarifReader) readParts(run *sarifRun, work <-chan *sarifPartOf, h fpHasher) {
	w := &sarifReader{name: sr.name, sc: jsonscan.Span(sr.name, nil, 0)}
	for p := range work {
		p.items = p.items[:0]
		p.fail = len(p.spans)
		for k, sp := range p.spans {
			at := p.base + int64(sp.Start)
			w.sc.ResetSpan(p.data[sp.Start:sp.End], at)
			res, err := w.readResult()
			if err != nil || w.sc.Rest() {
				p.fail = k
				break
			}
			p.items = append(p.items, sarifPrepItem{end: w.sc.Off()})
			w.prepare(&p.items[len(p.items)-1].p, run, &res, at, &h)
		}
		close(p.done)
	}
}
