package feed

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/gcloop/gcloop/bot/event"
)

// memLog is a small in-memory event log with the store's semantics: ids
// increase, a subscriber that falls behind has its channel closed, and
// Subscribe can be held shut (gate) or made to fail (refuse).
type memLog struct {
	mu       sync.Mutex
	events   []event.Event
	next     int64
	subs     map[chan event.Event]struct{}
	subBuf   int
	gate     chan struct{} // when non-nil, Subscribe waits for it to close
	refuse   int           // Subscribe calls left to fail
	subCalls int
	sinceErr error
}

var base = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func newMemLog() *memLog {
	return &memLog{subs: map[chan event.Event]struct{}{}, subBuf: 4096}
}

func (l *memLog) Append(_ context.Context, e event.Event) (event.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	e.ID = l.next
	e.Time = base.Add(time.Duration(e.ID) * time.Second)
	l.events = append(l.events, e)
	for ch := range l.subs {
		select {
		case ch <- e:
		default:
			delete(l.subs, ch)
			close(ch)
		}
	}
	return e, nil
}

// add appends an event of type typ for repo#pr/loop with data.
func (l *memLog) add(typ, repo string, pr int, loop string, data any) event.Event {
	var raw json.RawMessage
	if data != nil {
		raw, _ = json.Marshal(data)
	}
	e, _ := l.Append(context.Background(), event.Event{Type: typ, Repo: repo, PR: pr, Loop: loop, Data: raw})
	return e
}

func (l *memLog) Since(_ context.Context, after int64, limit int) ([]event.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sinceErr != nil {
		return nil, l.sinceErr
	}
	var out []event.Event
	for _, e := range l.events {
		if e.ID > after && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func (l *memLog) Subscribe(ctx context.Context) (<-chan event.Event, error) {
	l.mu.Lock()
	l.subCalls++
	gate := l.gate
	if l.refuse > 0 {
		l.refuse--
		l.mu.Unlock()
		return nil, errors.New("store unreachable")
	}
	l.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ch := make(chan event.Event, l.subBuf)
	l.mu.Lock()
	l.subs[ch] = struct{}{}
	l.mu.Unlock()
	go func() {
		<-ctx.Done()
		l.mu.Lock()
		defer l.mu.Unlock()
		if _, ok := l.subs[ch]; ok {
			delete(l.subs, ch)
			close(ch)
		}
	}()
	return ch, nil
}

// kick ends every subscription, as a store does with a subscriber that
// fell behind, and holds the next Subscribe shut until the returned
// function is called.
func (l *memLog) kick() (release func()) {
	gate := make(chan struct{})
	l.mu.Lock()
	l.gate = gate
	for ch := range l.subs {
		delete(l.subs, ch)
		close(ch)
	}
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		l.gate = nil
		l.mu.Unlock()
		close(gate)
	}
}

func (l *memLog) subscribers() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.subs)
}
