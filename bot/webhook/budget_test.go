package webhook

import (
	"context"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	t.Parallel()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		held int64 // taken before
		take int64
		wait time.Duration
		ctx  context.Context
		give int64 // given back while take waits
		want bool
	}{
		{"room", 0, 100, 0, context.Background(), 0, true},
		{"exactly full", 900, 100, 0, context.Background(), 0, true},
		{"one byte over, no wait", 901, 100, 0, context.Background(), 0, false},
		{"over, waiting for bytes nobody gives back", 1000, 1, 10 * time.Millisecond, context.Background(), 0, false},
		{"over, bytes given back while waiting", 1000, 100, time.Minute, context.Background(), 100, true},
		{"over, too few given back", 1000, 100, 10 * time.Millisecond, context.Background(), 50, false},
		{"over, the request ended", 1000, 1, time.Minute, canceled, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newBudget(1000)
			if !b.take(context.Background(), tt.held, 0) {
				t.Fatal("could not take the first bytes")
			}
			if tt.give > 0 {
				go b.give(tt.give)
			}
			got := b.take(tt.ctx, tt.take, tt.wait)
			if got != tt.want {
				t.Fatalf("take(%d) with %d of 1000 held = %v, want %v", tt.take, tt.held, got, tt.want)
			}
			want := tt.held - tt.give
			if got {
				want += tt.take
			}
			if tt.give > 0 && !got {
				// the give may land after the refusal; wait for it
				for b.inUse() != want {
					time.Sleep(time.Millisecond)
				}
			}
			if n := b.inUse(); n != want {
				t.Errorf("in use %d, want %d", n, want)
			}
		})
	}
}
