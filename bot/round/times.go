package round

import "time"

// roundTimes is when the round started and ended, to the second: the
// critic's completed workflow run — run_started_at (the latest attempt's
// start) to updated_at (when it completed) — when the event carries one,
// else when this engine began the round and now. A run whose times are
// missing or out of order tells nothing.
func (e *Engine) roundTimes() (started, ended time.Time) {
	if r := e.Event.Run; r != nil && r.GetStatus() == "completed" {
		s, u := r.GetRunStartedAt().Time, r.GetUpdatedAt().Time
		if !s.IsZero() && !u.IsZero() && !u.Before(s) {
			return s.UTC().Truncate(time.Second), u.UTC().Truncate(time.Second)
		}
	}
	now := e.Now()
	began := e.began
	if began.IsZero() || began.After(now) {
		began = now
	}
	return began.UTC().Truncate(time.Second), now.UTC().Truncate(time.Second)
}
