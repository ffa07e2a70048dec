package storetest

import (
	"testing"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

func runClosed(t *testing.T, open Open) {
	s := open(t, store.Options{})
	if err := s.Ping(ctxFor(t)); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	ctx := ctxFor(t)
	calls := []struct {
		name string
		err  error
	}{
		{"Add", func() error { _, err := s.Add(ctx, delivery("a", "")); return err }()},
		{"Claim", func() error { _, _, err := s.Claim(ctx, "w", Long); return err }()},
		{"Extend", s.Extend(ctx, "a", "w", Long)},
		{"Finish", s.Finish(ctx, "a", "w", store.Done)},
		{"Release", s.Release(ctx, "a", "w")},
		{"Pending", func() error { _, err := s.Pending(ctx); return err }()},
		{"Append", func() error { _, err := s.Append(ctx, event.Event{Type: event.Round}); return err }()},
		{"Since", func() error { _, err := s.Since(ctx, 0, 1); return err }()},
		{"Subscribe", func() error { _, err := s.Subscribe(ctx); return err }()},
		{"Ping", s.Ping(ctx)},
	}
	for _, c := range calls {
		wantErr(t, c.name+" after Close", c.err, store.ErrClosed)
	}
}
