package store

import (
	"container/heap"
	"container/list"
	"fmt"
	"sort"
	"time"
)

// memQueue is Memory's queue. Invariant: the deliveries that may be
// claimed — those without a key, and for each key that no claim holds,
// its oldest pending delivery — are each in exactly one place: in their
// installation's ready heap when due, in later when not yet due. The
// installations whose ready heap is not empty take turns in turns.
type memQueue struct {
	seq     int64
	byID    map[string]*memEntry // pending and claimed deliveries
	digests map[string]*memEntry // the digests of pending, claimed and dead deliveries
	keys    map[string]*keyQueue // keys with a pending or claimed delivery
	ready   map[int64]*entryHeap // by installation, oldest first
	turns   *list.List           // of int64: installations with ready work, next first
	turnOf  map[int64]*list.Element
	later   entryHeap // claimable but not yet due, soonest first
	claims  map[*memEntry]struct{}
	depth   int // pending + claimed

	// dead are the dead deliveries, kept for Dead and Redeliver up to
	// deadMax; deadOrder holds them in the order they died (with stale
	// entries of redelivered ones).
	dead      map[string]*memEntry
	deadOrder []*memEntry
	deadMax   int

	// seen remembers finished deliveries' ids and digests, oldest first,
	// up to seenMax.
	seen    map[string]struct{}
	seenDig map[string]struct{}
	order   []seenRec
	seenMax int
}

type seenRec struct{ id, digest string }

// Where an entry is.
const (
	nowhere = iota // waiting behind an older delivery of its key
	inReady
	inLater
	claimed
	buried
)

type memEntry struct {
	d      Delivery
	seq    int64
	due    time.Time // not claimed before; zero: at once
	outs   int       // leases that ran out: its workers died
	worker string    // claimed by; "" when not claimed
	until  time.Time // the lease's end when claimed
	where  int
	index  int // in its heap
}

// keyQueue is one key's deliveries: the one claimed, if any, and the
// pending ones in added order.
type keyQueue struct {
	held    *memEntry
	pending []*memEntry
}

func newMemQueue(seenMax, deadMax int) memQueue {
	return memQueue{
		byID:    make(map[string]*memEntry),
		digests: make(map[string]*memEntry),
		keys:    make(map[string]*keyQueue),
		ready:   make(map[int64]*entryHeap),
		turns:   list.New(),
		turnOf:  make(map[int64]*list.Element),
		later:   entryHeap{byDue: true},
		claims:  make(map[*memEntry]struct{}),
		dead:    make(map[string]*memEntry),
		deadMax: deadMax,
		seen:    make(map[string]struct{}),
		seenDig: make(map[string]struct{}),
		seenMax: seenMax,
	}
}

// known reports whether d's id or digest was added before.
func (q *memQueue) known(d Delivery) bool {
	if _, ok := q.byID[d.ID]; ok {
		return true
	}
	if _, ok := q.seen[d.ID]; ok {
		return true
	}
	if _, ok := q.dead[d.ID]; ok {
		return true
	}
	if d.Digest == "" {
		return false
	}
	if _, ok := q.digests[d.Digest]; ok {
		return true
	}
	_, ok := q.seenDig[d.Digest]
	return ok
}

// add queues d unless its id or digest was seen.
func (q *memQueue) add(d Delivery, now time.Time) bool {
	if q.known(d) {
		return false
	}
	q.seq++
	e := &memEntry{d: d, seq: q.seq}
	q.byID[d.ID] = e
	if d.Digest != "" {
		q.digests[d.Digest] = e
	}
	q.depth++
	if d.Key == "" {
		q.place(e, now)
		return true
	}
	k := q.keys[d.Key]
	if k == nil {
		k = &keyQueue{}
		q.keys[d.Key] = k
	}
	k.pending = append(k.pending, e)
	if k.held == nil && len(k.pending) == 1 {
		q.place(e, now)
	}
	return true
}

// place puts claimable e in its installation's ready heap, or in later
// when it is not due.
func (q *memQueue) place(e *memEntry, now time.Time) {
	if e.due.After(now) {
		e.where = inLater
		heap.Push(&q.later, e)
		return
	}
	q.ready1(e)
}

// ready1 puts e in its installation's ready heap, the installation in
// turns when it had no ready work.
func (q *memQueue) ready1(e *memEntry) {
	inst := e.d.Installation
	h := q.ready[inst]
	if h == nil {
		h = &entryHeap{}
		q.ready[inst] = h
		q.turnOf[inst] = q.turns.PushBack(inst)
	}
	e.where = inReady
	heap.Push(h, e)
}

// unplace takes claimable e out of ready or later.
func (q *memQueue) unplace(e *memEntry) {
	switch e.where {
	case inReady:
		inst := e.d.Installation
		h := q.ready[inst]
		heap.Remove(h, e.index)
		if h.Len() == 0 {
			q.dropTurn(inst)
		}
	case inLater:
		heap.Remove(&q.later, e.index)
	}
	e.where = nowhere
}

func (q *memQueue) dropTurn(inst int64) {
	q.turns.Remove(q.turnOf[inst])
	delete(q.turnOf, inst)
	delete(q.ready, inst)
}

// promote moves the deliveries due by now from later to ready.
func (q *memQueue) promote(now time.Time) {
	for q.later.Len() > 0 && !q.later.es[0].due.After(now) {
		q.ready1(heap.Pop(&q.later).(*memEntry))
	}
}

// claim hands the oldest ready delivery of the installation whose turn it
// is to worker until until.
func (q *memQueue) claim(worker string, now, until time.Time) (Delivery, bool) {
	q.promote(now)
	front := q.turns.Front()
	if front == nil {
		return Delivery{}, false
	}
	inst := front.Value.(int64)
	h := q.ready[inst]
	e := heap.Pop(h).(*memEntry)
	if h.Len() == 0 {
		q.dropTurn(inst)
	} else {
		q.turns.MoveToBack(front)
	}
	if e.d.Key != "" {
		k := q.keys[e.d.Key]
		k.pending[0] = nil
		k.pending = k.pending[1:]
		k.held = e
	}
	e.where = claimed
	e.worker = worker
	e.until = until
	e.due = time.Time{}
	e.d.Attempts++
	if e.d.First.IsZero() {
		e.d.First = now
	}
	q.claims[e] = struct{}{}
	return e.d, true
}

// claimOf is worker's claim of delivery id, or ErrLost.
func (q *memQueue) claimOf(id, worker string) (*memEntry, error) {
	e, ok := q.byID[id]
	if !ok || e.where != claimed || e.worker != worker {
		return nil, ErrLost
	}
	return e, nil
}

// expire ends the claims whose lease ran out by now: pending again, or
// dead once MaxAttempts leases of it ran out (attempts that ended in a
// retry do not count: their worker lived).
func (q *memQueue) expire(now time.Time) {
	for e := range q.claims {
		if e.until.After(now) {
			continue
		}
		if e.outs++; e.outs >= MaxAttempts {
			q.bury(e, fmt.Sprintf("its lease ran out %d times (on attempt %d): a delivery its workers die on", e.outs, e.d.Attempts), now)
		} else {
			q.requeue(e, time.Time{}, now)
		}
	}
}

// finish forgets claimed e but for its id and digest.
func (q *memQueue) finish(e *memEntry, now time.Time) {
	q.drop(e, now)
	q.remember(e.d.ID, e.d.Digest)
}

// drop takes claimed e out of the queue, its key's next delivery
// claimable.
func (q *memQueue) drop(e *memEntry, now time.Time) {
	q.unclaim(e)
	delete(q.byID, e.d.ID)
	if e.d.Digest != "" {
		delete(q.digests, e.d.Digest)
	}
	q.depth--
	q.next(e.d.Key, now)
}

// next makes key's oldest pending delivery claimable, or forgets the key
// when it has none; the key holds no claim.
func (q *memQueue) next(key string, now time.Time) {
	k := q.keys[key]
	if k == nil {
		return
	}
	if len(k.pending) == 0 {
		delete(q.keys, key)
		return
	}
	q.place(k.pending[0], now)
}

// bury makes claimed e dead with reason.
func (q *memQueue) bury(e *memEntry, reason string, now time.Time) {
	q.drop(e, now)
	e.where = buried
	e.d.Error = reason
	e.d.Finished = now
	q.dead[e.d.ID] = e
	if e.d.Digest != "" {
		q.digests[e.d.Digest] = e
	}
	q.deadOrder = append(q.deadOrder, e)
	for len(q.dead) > q.deadMax {
		old := q.deadOrder[0]
		q.deadOrder[0] = nil
		q.deadOrder = q.deadOrder[1:]
		if q.dead[old.d.ID] == old {
			delete(q.dead, old.d.ID)
			if old.d.Digest != "" {
				delete(q.digests, old.d.Digest)
			}
			q.remember(old.d.ID, old.d.Digest)
		}
	}
	if len(q.deadOrder) > 2*len(q.dead)+16 {
		live := q.deadOrder[:0:0]
		for _, d := range q.deadOrder {
			if q.dead[d.d.ID] == d {
				live = append(live, d)
			}
		}
		q.deadOrder = live
	}
}

// deadList is at most limit dead deliveries, the latest to die first,
// without payloads.
func (q *memQueue) deadList(limit int) []Delivery {
	out := []Delivery{}
	for i := len(q.deadOrder) - 1; i >= 0 && len(out) < limit; i-- {
		e := q.deadOrder[i]
		if q.dead[e.d.ID] != e {
			continue
		}
		d := e.d
		d.Payload = nil
		out = append(out, d)
	}
	return out
}

// redeliver queues dead delivery id again, as a new arrival.
func (q *memQueue) redeliver(id string, now time.Time) error {
	e, ok := q.dead[id]
	if !ok {
		if _, live := q.byID[id]; live {
			return ErrNotDead
		}
		if _, done := q.seen[id]; done {
			return ErrNotDead
		}
		return ErrUnknown
	}
	delete(q.dead, id)
	if e.d.Digest != "" {
		delete(q.digests, e.d.Digest)
	}
	d := e.d
	d.Attempts, d.First, d.Error, d.Finished = 0, time.Time{}, "", time.Time{}
	q.add(d, now)
	return nil
}

// requeue makes claimed e pending again, ahead of the later deliveries of
// its key (an older one may have been re-keyed into the key meanwhile), not
// claimable before due.
func (q *memQueue) requeue(e *memEntry, due, now time.Time) {
	q.unclaim(e)
	e.due = due
	k := q.keys[e.d.Key]
	if k == nil {
		q.place(e, now)
		return
	}
	k.insert(e)
	q.place(k.pending[0], now)
}

// insert puts e among k's pending deliveries in arrival order; it reports
// e's place.
func (k *keyQueue) insert(e *memEntry) int {
	i := sort.Search(len(k.pending), func(i int) bool { return k.pending[i].seq > e.seq })
	k.pending = append(k.pending, nil)
	copy(k.pending[i+1:], k.pending[i:])
	k.pending[i] = e
	return i
}

// rekey makes claimed e pending again under key, in its place by arrival
// among key's deliveries.
func (q *memQueue) rekey(e *memEntry, key string, now time.Time) {
	q.unclaim(e)
	e.d.Attempts--
	q.next(e.d.Key, now)
	e.d.Key = key
	if key == "" {
		q.place(e, now)
		return
	}
	k := q.keys[key]
	if k == nil {
		k = &keyQueue{}
		q.keys[key] = k
	}
	i := k.insert(e)
	if k.held != nil || i != 0 {
		return
	}
	if len(k.pending) > 1 {
		q.unplace(k.pending[1]) // the former first, claimable until now
	}
	q.place(e, now)
}

func (q *memQueue) unclaim(e *memEntry) {
	delete(q.claims, e)
	e.where = nowhere
	e.worker = ""
	e.until = time.Time{}
	if k := q.keys[e.d.Key]; k != nil && k.held == e {
		k.held = nil
	}
}

// remember keeps id and digest among the seen ones, forgetting the oldest
// beyond seenMax.
func (q *memQueue) remember(id, digest string) {
	q.seen[id] = struct{}{}
	if digest != "" {
		q.seenDig[digest] = struct{}{}
	}
	q.order = append(q.order, seenRec{id, digest})
	if len(q.order) <= q.seenMax {
		return
	}
	old := q.order[0]
	delete(q.seen, old.id)
	if old.digest != "" {
		delete(q.seenDig, old.digest)
	}
	q.order[0] = seenRec{}
	// append copies the live records to a new array when this one is
	// full, so the array stays within twice seenMax.
	q.order = q.order[1:]
}

// entryHeap orders entries by the order they were added, or by when they
// are due and then that order.
type entryHeap struct {
	es    []*memEntry
	byDue bool
}

func (h *entryHeap) Len() int { return len(h.es) }
func (h *entryHeap) Less(i, j int) bool {
	a, b := h.es[i], h.es[j]
	if h.byDue && !a.due.Equal(b.due) {
		return a.due.Before(b.due)
	}
	return a.seq < b.seq
}

func (h *entryHeap) Swap(i, j int) {
	h.es[i], h.es[j] = h.es[j], h.es[i]
	h.es[i].index = i
	h.es[j].index = j
}

func (h *entryHeap) Push(x any) {
	e := x.(*memEntry)
	e.index = len(h.es)
	h.es = append(h.es, e)
}

func (h *entryHeap) Pop() any {
	n := len(h.es)
	e := h.es[n-1]
	h.es[n-1] = nil
	e.index = -1
	h.es = h.es[:n-1]
	return e
}
