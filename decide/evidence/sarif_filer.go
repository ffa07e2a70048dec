package evidence

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// Reading the results of a run and filing them as findings (severity,
// message, fingerprint for the dedupe, ranking) take about as long as each
// other, so on several cores they overlap: the scanning goroutine reads
// results into batches that one filing goroutine files in order. A results
// array shorter than one batch is filed on the scanning goroutine, as is
// everything when only one core is available. Filing never reads the
// scanner, and the run's state it uses (rules, bases) does not change while
// results are read; the filer is done before the run reads on.

// sarifBatch is the number of results per batch.
const sarifBatch = 256

// sarifItem is one result read, with where it was read.
type sarifItem struct {
	res     sarifResult
	at, end int64 // file offsets of the result's start and end
	i       int   // index in the results array
}

// errFilerStopped stops the scan after the filer failed; the filer's error
// is returned.
var errFilerStopped = errors.New("the filing of results failed")

// sarifFiler files batches of results of one results array.
type sarifFiler struct {
	sr     *sarifReader
	run    *sarifRun
	what   string
	batch  []sarifItem
	queue  chan []sarifItem // batches to file; nil until the first is full
	free   chan []sarifItem // batches filed, for reuse
	done   chan error       // the filer's first error (or nil), when it ends
	failed atomic.Bool
}

// file files the results of a batch in order; it returns the first error.
func (f *sarifFiler) file(batch []sarifItem) error {
	for k := range batch {
		it := &batch[k]
		if err := f.sr.addResult(f.run, &it.res, it.at, it.end); err != nil {
			return sarifPrefix(err, fmt.Sprintf("%s[%d]", f.what, it.i))
		}
	}
	return nil
}

// add queues a result read; a full batch goes to the filing goroutine,
// started with the first. It returns errFilerStopped once filing failed.
func (f *sarifFiler) add(it sarifItem) error {
	f.batch = append(f.batch, it)
	if len(f.batch) < f.sr.batch {
		return nil
	}
	if f.queue == nil {
		if !f.sr.overlap {
			err := f.file(f.batch)
			f.batch = f.batch[:0]
			return err
		}
		f.start()
	}
	f.queue <- f.batch
	select {
	case f.batch = <-f.free:
	default:
		f.batch = make([]sarifItem, 0, f.sr.batch)
	}
	if f.failed.Load() {
		return errFilerStopped
	}
	return nil
}

func (f *sarifFiler) start() {
	f.queue = make(chan []sarifItem, 4)
	f.free = make(chan []sarifItem, 6)
	f.done = make(chan error, 1)
	go func() {
		var ferr error
		for b := range f.queue {
			if ferr == nil {
				if ferr = f.file(b); ferr != nil {
					f.failed.Store(true)
				}
			}
			select {
			case f.free <- b[:0]:
			default:
			}
		}
		f.done <- ferr
	}()
}

// finish files what is left and waits for the filer. scanErr is the
// error that stopped the scan, if any: a filing error comes first, since
// it is at a result read before.
func (f *sarifFiler) finish(scanErr error) error {
	var ferr error
	if f.queue != nil {
		if len(f.batch) > 0 {
			f.queue <- f.batch
		}
		close(f.queue)
		ferr = <-f.done
	} else {
		ferr = f.file(f.batch)
	}
	if ferr != nil {
		return ferr
	}
	return scanErr
}

// readResults reads and files the results array of a run.
func (sr *sarifReader) readResults(run *sarifRun, what string) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	if err := s.OpenArray(what, ""); err != nil {
		return err
	}
	if sr.workers > 1 && run.toolSeen {
		return sr.readResultsSplit(run, what)
	}
	return sr.readResultsFrom(run, what, 0)
}

// readResultsFrom reads and files the results of an array from result i
// on (its '[' and the results before i consumed and filed), one at a time.
func (sr *sarifReader) readResultsFrom(run *sarifRun, what string, i int) error {
	s := sr.sc
	f := &sarifFiler{sr: sr, run: run, what: what, batch: make([]sarifItem, 0, sr.batch)}
	err := s.ArrayFrom(i, i == 0, func(i int) error {
		at := s.Off()
		res, err := sr.readResult()
		if err != nil {
			return sarifPrefix(err, fmt.Sprintf("%s[%d]", what, i))
		}
		return f.add(sarifItem{res: res, at: at, end: s.Off(), i: i})
	})
	if errors.Is(err, errFilerStopped) {
		err = nil // the filer's error is returned
	}
	return f.finish(err)
}
