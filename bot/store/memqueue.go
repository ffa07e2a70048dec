package store

import (
	"container/heap"
	"time"
)

// memQueue is Memory's queue. Invariant: ready holds exactly the pending
// deliveries that may be claimed now — those without a key, and for each
// key that no claim holds, its oldest pending delivery.
type memQueue struct {
	seq    int64
	byID   map[string]*memEntry // pending and claimed deliveries
	keys   map[string]*keyQueue // keys with a pending or claimed delivery
	ready  readyHeap
	claims map[*memEntry]struct{}
	depth  int // pending + claimed

	// seen remembers finished deliveries' ids, oldest first, up to max.
	seen    map[string]struct{}
	order   []string
	seenMax int
}

type memEntry struct {
	d      Delivery
	seq    int64
	worker string    // claimed by; "" when pending
	until  time.Time // the lease's end when claimed
	index  int       // in ready, -1 when not there
}

// keyQueue is one key's deliveries: the one claimed, if any, and the
// pending ones in added order.
type keyQueue struct {
	held    *memEntry
	pending []*memEntry
}

func newMemQueue(seenMax int) memQueue {
	return memQueue{
		byID:    make(map[string]*memEntry),
		keys:    make(map[string]*keyQueue),
		claims:  make(map[*memEntry]struct{}),
		seen:    make(map[string]struct{}),
		seenMax: seenMax,
	}
}

// add queues d unless its id was seen.
func (q *memQueue) add(d Delivery) bool {
	if _, ok := q.byID[d.ID]; ok {
		return false
	}
	if _, ok := q.seen[d.ID]; ok {
		return false
	}
	q.seq++
	e := &memEntry{d: d, seq: q.seq, index: -1}
	q.byID[d.ID] = e
	q.depth++
	if d.Key == "" {
		heap.Push(&q.ready, e)
		return true
	}
	k := q.keys[d.Key]
	if k == nil {
		k = &keyQueue{}
		q.keys[d.Key] = k
	}
	k.pending = append(k.pending, e)
	if k.held == nil && len(k.pending) == 1 {
		heap.Push(&q.ready, e)
	}
	return true
}

// claim hands the oldest claimable delivery to worker until until.
func (q *memQueue) claim(worker string, until time.Time) (Delivery, bool) {
	if q.ready.Len() == 0 {
		return Delivery{}, false
	}
	e := heap.Pop(&q.ready).(*memEntry)
	if e.d.Key != "" {
		k := q.keys[e.d.Key]
		k.pending[0] = nil
		k.pending = k.pending[1:]
		k.held = e
	}
	e.worker = worker
	e.until = until
	e.d.Attempts++
	q.claims[e] = struct{}{}
	return e.d, true
}

// claimOf is worker's claim of delivery id, or ErrLost.
func (q *memQueue) claimOf(id, worker string) (*memEntry, error) {
	e, ok := q.byID[id]
	if !ok || e.worker == "" || e.worker != worker {
		return nil, ErrLost
	}
	return e, nil
}

// expire ends the claims whose lease ran out by now: pending again, or
// Failed after MaxAttempts.
func (q *memQueue) expire(now time.Time) {
	for e := range q.claims {
		if e.until.After(now) {
			continue
		}
		if e.d.Attempts >= MaxAttempts {
			q.finish(e)
		} else {
			q.requeue(e)
		}
	}
}

// finish forgets claimed e but for its id.
func (q *memQueue) finish(e *memEntry) {
	q.unclaim(e)
	delete(q.byID, e.d.ID)
	q.depth--
	if k := q.keys[e.d.Key]; k != nil {
		if len(k.pending) == 0 {
			delete(q.keys, e.d.Key)
		} else {
			heap.Push(&q.ready, k.pending[0])
		}
	}
	q.remember(e.d.ID)
}

// requeue makes claimed e pending again, ahead of the later deliveries of
// its key.
func (q *memQueue) requeue(e *memEntry) {
	q.unclaim(e)
	if k := q.keys[e.d.Key]; k != nil {
		k.pending = append([]*memEntry{e}, k.pending...)
	}
	heap.Push(&q.ready, e)
}

func (q *memQueue) unclaim(e *memEntry) {
	delete(q.claims, e)
	e.worker = ""
	e.until = time.Time{}
	if k := q.keys[e.d.Key]; k != nil {
		k.held = nil
	}
}

// remember keeps id among the seen ones, forgetting the oldest beyond
// seenMax.
func (q *memQueue) remember(id string) {
	q.seen[id] = struct{}{}
	q.order = append(q.order, id)
	if len(q.order) <= q.seenMax {
		return
	}
	delete(q.seen, q.order[0])
	q.order[0] = ""
	// append copies the live ids to a new array when this one is full,
	// so the array stays within twice seenMax.
	q.order = q.order[1:]
}

// readyHeap orders claimable deliveries by the order they were added.
type readyHeap []*memEntry

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return h[i].seq < h[j].seq }
func (h readyHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *readyHeap) Push(x any) {
	e := x.(*memEntry)
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *readyHeap) Pop() any {
	old := *h
	n := len(old)
	e := old[n-1]
	old[n-1] = nil
	e.index = -1
	*h = old[:n-1]
	return e
}
