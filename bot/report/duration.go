package report

import (
	"fmt"
	"time"

	"github.com/gcloop/gcloop/decide"
)

// roundTime is a history row's time column: how long the round took (the
// critic's workflow run, or the round as gcloop ran it), "—" when the
// record does not say.
func roundTime(r decide.RoundRecord) string {
	d, ok := r.Duration()
	if !ok {
		return "—"
	}
	return duration(d)
}

// loopTime is the line under the history table: the rounds' time added up
// and the time from the first round's start to the last one's end, over
// the rounds that say; "" when none does.
func loopTime(h []decide.RoundRecord) string {
	var sum time.Duration
	var first, last time.Time
	n := 0
	for _, r := range h {
		d, ok := r.Duration()
		if !ok {
			continue
		}
		n++
		sum += d
		if first.IsZero() || r.Started.Before(first) {
			first = r.Started
		}
		if r.Ended.After(last) {
			last = r.Ended
		}
	}
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("**Time:** %s in %s", duration(sum), plural(n, "round"))
	if n < len(h) {
		s += fmt.Sprintf(" (%d without times)", len(h)-n)
	}
	if n > 1 {
		s += fmt.Sprintf("; %s from the first round's start to the last one's end", duration(last.Sub(first)))
	}
	return s + "."
}

// duration words a duration to the second: 45s, 4m 05s, 2h 03m, 3d 04h.
func duration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	default:
		return fmt.Sprintf("%dd %02dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
	}
}
