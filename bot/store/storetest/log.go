package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/google/go-cmp/cmp"
)

// ev is an event of type typ with n in its data.
func ev(typ string, n int) event.Event {
	return event.Event{
		Type: typ,
		Repo: "o/r",
		PR:   n,
		Loop: "review",
		Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n)),
	}
}

func mustAppend(t *testing.T, s store.Store, e event.Event) event.Event {
	t.Helper()
	got, err := s.Append(ctxFor(t), e)
	if err != nil {
		t.Fatalf("Append(%s): %v", e.Type, err)
	}
	return got
}

func ids(es []event.Event) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func runLog(t *testing.T, open Open) {
	t.Run("Append sets increasing ids and the time; Since returns the events", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		before := time.Now().Add(-time.Minute)
		var appended []event.Event
		for i, typ := range []string{event.Delivery, event.Round, event.Decision, event.Error} {
			in := ev(typ, i)
			e := mustAppend(t, s, in)
			if len(appended) > 0 && e.ID <= appended[len(appended)-1].ID {
				t.Fatalf("Append %d: id %d after %d; want increasing", i, e.ID, appended[len(appended)-1].ID)
			}
			if e.Time.Before(before) || e.Time.After(time.Now().Add(time.Minute)) {
				t.Fatalf("Append %d: time %v; want about now", i, e.Time)
			}
			in.ID, in.Time = e.ID, e.Time
			if diff := cmp.Diff(in, e); diff != "" {
				t.Fatalf("Append %d (-want +got):\n%s", i, diff)
			}
			appended = append(appended, e)
		}
		got, err := s.Since(ctxFor(t), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(appended, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
			t.Fatalf("Since(0) (-want +got):\n%s", diff)
		}
	})

	t.Run("Add logs a delivery's arrival with it, in order, and a duplicate's not", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		before := mustAppend(t, s, ev(event.Round, 1))
		for i, id := range []string{"a", "b", "a", "c"} {
			d := delivery(id, "o/r#1")
			d.Arrival = ev(event.Delivery, i)
			d.Arrival.Data = []byte(`{"delivery":"` + id + `"}`)
			if added, err := s.Add(ctxFor(t), d); err != nil || added != (i != 2) {
				t.Fatalf("Add(%s) = %v, %v; want %v", id, added, err, i != 2)
			}
		}
		after := mustAppend(t, s, ev(event.Round, 2))
		got, err := s.Since(ctxFor(t), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		for _, e := range got {
			seen = append(seen, e.Type+string(e.Data))
		}
		want := []string{event.Round + string(before.Data), event.Delivery + `{"delivery":"a"}`, event.Delivery + `{"delivery":"b"}`,
			event.Delivery + `{"delivery":"c"}`, event.Round + string(after.Data)}
		if fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Errorf("log %v; want %v", seen, want)
		}
		for {
			d, ok, err := s.Claim(ctxFor(t), "w", Long)
			if err != nil || !ok {
				break
			}
			if d.Arrival.Type != "" {
				t.Errorf("claimed %s with its arrival event %+v; the store keeps the event, not the field", d.ID, d.Arrival)
			}
			if err := s.Finish(ctxFor(t), d.ID, "w", store.Done); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("an event without data keeps none", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		e := mustAppend(t, s, event.Event{Type: event.Check})
		got, err := s.Since(ctxFor(t), e.ID-1, 1)
		if err != nil || len(got) != 1 {
			t.Fatalf("Since = %v, %v; want the event", got, err)
		}
		if got[0].Data != nil || got[0].Repo != "" || got[0].PR != 0 {
			t.Fatalf("Since = %+v; want no data, repo or pr", got[0])
		}
	})

	t.Run("Since starts after the id given and stops at the limit", func(t *testing.T) {
		t.Parallel()
		s := open(t, store.Options{})
		var all []int64
		for i := range 10 {
			all = append(all, mustAppend(t, s, ev(event.Round, i)).ID)
		}
		tests := []struct {
			after int64
			limit int
			want  []int64
		}{
			{0, 100, all},
			{0, 3, all[:3]},
			{all[2], 3, all[3:6]},
			{all[8], 100, all[9:]},
			{all[9], 100, nil},
			{all[9] + 100, 100, nil},
			{0, 0, nil},
			{-5, 2, all[:2]},
		}
		for _, tt := range tests {
			got, err := s.Since(ctxFor(t), tt.after, tt.limit)
			if err != nil {
				t.Fatalf("Since(%d, %d): %v", tt.after, tt.limit, err)
			}
			if diff := cmp.Diff(tt.want, ids(got), cmp.Comparer(func(a, b []int64) bool {
				return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
			})); diff != "" {
				t.Errorf("Since(%d, %d) ids (-want +got):\n%s", tt.after, tt.limit, diff)
			}
		}
	})

	t.Run("the newest Retained events are kept, old ones dropped", func(t *testing.T) {
		t.Parallel()
		const retained = 20
		s := open(t, store.Options{Retained: retained})
		var all []int64
		for i := range 3 * retained {
			all = append(all, mustAppend(t, s, ev(event.Round, i)).ID)
		}
		got, err := s.Since(ctxFor(t), 0, 10*retained)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < retained || len(got) > 2*retained {
			t.Fatalf("Since(0) kept %d events of %d; want between %d and %d", len(got), len(all), retained, 2*retained)
		}
		want := all[len(all)-len(got):]
		if diff := cmp.Diff(want, ids(got)); diff != "" {
			t.Fatalf("Since(0) ids (-want the newest +got):\n%s", diff)
		}
	})
}
