package store

import "github.com/gcloop/gcloop/bot/event"

// memLog is Memory's event log: IDs from 1 without gaps, the newest
// retained kept.
type memLog struct {
	retained int
	events   []event.Event // IDs events[0].ID, events[0].ID+1, …
	last     int64
}

func (l *memLog) append(e event.Event) event.Event {
	l.last++
	e.ID = l.last
	l.events = append(l.events, e)
	// Drop the oldest in one go once twice as many as retained are held.
	if len(l.events) >= 2*l.retained {
		l.events = append([]event.Event(nil), l.events[len(l.events)-l.retained:]...)
	}
	return e
}

func (l *memLog) since(after int64, limit int) []event.Event {
	if limit <= 0 || len(l.events) == 0 {
		return nil
	}
	start := len(l.events) - l.retained
	if start < 0 {
		start = 0
	}
	if i := after + 1 - l.events[0].ID; i > int64(start) {
		if i >= int64(len(l.events)) {
			return nil
		}
		start = int(i)
	}
	end := len(l.events)
	if end-start > limit {
		end = start + limit
	}
	return append([]event.Event(nil), l.events[start:end]...)
}
