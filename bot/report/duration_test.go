package report

import (
	"testing"
	"time"

	"github.com/gcloop/gcloop/decide"
)

func TestDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1499 * time.Millisecond, "1s"},
		{59 * time.Second, "59s"},
		{time.Minute, "1m 00s"},
		{4*time.Minute + 5*time.Second, "4m 05s"},
		{time.Hour - time.Second, "59m 59s"},
		{time.Hour + 2*time.Minute + 59*time.Second, "1h 02m"},
		{49 * time.Hour, "2d 01h"},
	}
	for _, tt := range tests {
		if got := duration(tt.d); got != tt.want {
			t.Errorf("duration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestLoopTime(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	r := func(start time.Time, d time.Duration) decide.RoundRecord {
		return decide.RoundRecord{Started: start, Ended: start.Add(d)}
	}
	tests := []struct {
		name string
		h    []decide.RoundRecord
		want string
	}{
		{"no round has times", []decide.RoundRecord{{N: 1}, {N: 2}}, ""},
		{"one round", []decide.RoundRecord{r(t0, 90*time.Second)}, "**Time:** 1m 30s in 1 round."},
		{"rounds an hour apart", []decide.RoundRecord{r(t0, 5*time.Minute), r(t0.Add(time.Hour), 5*time.Minute)},
			"**Time:** 10m 00s in 2 rounds; 1h 05m from the first round's start to the last one's end."},
		{"an old round without times", []decide.RoundRecord{{N: 1}, r(t0, time.Minute)},
			"**Time:** 1m 00s in 1 round (1 without times)."},
		{"an end before its start is no time", []decide.RoundRecord{r(t0, -time.Minute)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := loopTime(tt.h); got != tt.want {
				t.Errorf("loopTime = %q, want %q", got, tt.want)
			}
		})
	}
}
