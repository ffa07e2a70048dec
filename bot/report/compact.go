package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/gcloop/gcloop/decide"
)

// keptRounds is how many newest rounds CompactState keeps whole as long as
// it can. Stall detection compares a round's blocking fingerprints with
// those of the rounds before it; with the default stall of 2 it reads the
// last two recorded rounds, so three whole rounds serve a stall of up to 3.
const keptRounds = 3

// CompactState returns a copy of st whose marker (Marker) fits in
// maxBytes, shrinking the history step by step and stopping as soon as it
// fits:
//
//  0. the per-file coverage of rounds before the newest that kept one,
//     then the newest's too (the report then shows no per-file change in
//     the next round, which says why);
//  1. the fingerprints (with the rounds they were first seen in) and task
//     ids of rounds older than the last three, oldest first (only stall
//     detection and the movement read fingerprints, and only of the last
//     few rounds; a round's movement counts stay);
//  2. the issue numbers, commit, actor, run id and signal of those rounds,
//     oldest first;
//  3. those rounds folded into one record that keeps the newest one's
//     number, time, decision and figures, with the verdict
//     "rounds a–b compacted";
//  4. the fingerprints and task ids of the last three rounds but the
//     newest, oldest first;
//  5. the newest round's fingerprints and task ids, halved until they fit
//     (the next round then counts the findings dropped as new ones).
//
// Round numbers, the loop status and the grants (which count extra
// rounds) are never changed, so the next round number and the round cap
// stay right. If even the result of step 5 does not fit, it is returned
// anyway and the report renderer refuses it. st itself is not modified;
// a nil st gives nil.
func CompactState(st *decide.State, maxBytes int) *decide.State {
	if st == nil {
		return nil
	}
	c := copyState(st)
	// The marker is the base64 of the state's JSON; the JSON length is kept
	// up to date record by record instead of re-encoding the whole state
	// at every step (a record encodes the same alone as in the array).
	size := jsonLen(c)
	if size < 0 {
		return c // not encodable (a NaN figure): Marker reports it
	}
	fits := func() bool { return markerLen(c.ID, size) <= maxBytes }
	edit := func(i int, change func(r *decide.RoundRecord)) bool {
		before := jsonLen(c.Rounds[i])
		change(&c.Rounds[i])
		size += jsonLen(c.Rounds[i]) - before
		return fits()
	}
	if fits() {
		return c
	}
	for len(c.Files) > 0 {
		c.Files = c.Files[1:] // RecordFiles keeps them oldest first
		if size = jsonLen(c); fits() {
			return c
		}
	}
	old := max(len(c.Rounds)-keptRounds, 0)
	for i := 0; i < old; i++ {
		if edit(i, func(r *decide.RoundRecord) { r.Fingerprints, r.FirstSeen, r.Tasks = []string{}, nil, []string{} }) {
			return c
		}
	}
	for i := 0; i < old; i++ {
		if edit(i, func(r *decide.RoundRecord) {
			r.Issues, r.Commit, r.Actor, r.RunID, r.RunAttempt, r.Signal = []int{}, "", "", 0, 0, ""
		}) {
			return c
		}
	}
	if old > 1 {
		c.Rounds = append([]decide.RoundRecord{fold(c.Rounds[:old])}, c.Rounds[old:]...)
		old = 1
		size = jsonLen(c)
		if fits() {
			return c
		}
	}
	for i := old; i < len(c.Rounds)-1; i++ {
		if edit(i, func(r *decide.RoundRecord) { r.Fingerprints, r.FirstSeen, r.Tasks = []string{}, nil, []string{} }) {
			return c
		}
	}
	if n := len(c.Rounds); n > 0 {
		for r := &c.Rounds[n-1]; len(r.Fingerprints) > 0 || len(r.Tasks) > 0; {
			if edit(n-1, func(r *decide.RoundRecord) {
				r.Fingerprints = r.Fingerprints[:len(r.Fingerprints)/2]
				r.FirstSeen = r.FirstSeen[:min(len(r.FirstSeen), len(r.Fingerprints))]
				r.Tasks = r.Tasks[:len(r.Tasks)/2]
			}) {
				return c
			}
		}
	}
	return c
}

// jsonLen is the length of v's JSON encoding, -1 if it has none (a state
// always has one: it holds only strings, numbers, times and slices).
func jsonLen(v any) int {
	data, err := json.Marshal(v)
	if err != nil {
		return -1
	}
	return len(data)
}

// fold merges consecutive round records into one that stands for all of
// them: the last one's number, time, decision and figures, no details.
func fold(rs []decide.RoundRecord) decide.RoundRecord {
	first, last := rs[0], rs[len(rs)-1]
	from := first.N
	var a, b int
	if _, err := fmt.Sscanf(first.Verdict, "rounds %d–%d compacted", &a, &b); err == nil && a > 0 && a <= first.N {
		from = a // an earlier fold: keep where it started
	}
	out := last
	out.SHA, out.Commit, out.Actor, out.Signal, out.RunID, out.RunAttempt = "", "", "", "", 0, 0
	out.Verdict = fmt.Sprintf("rounds %d–%d compacted", from, last.N)
	out.Stalled = false
	out.Fingerprints, out.FirstSeen, out.Tasks, out.Issues = []string{}, nil, []string{}, []int{}
	out.Started, out.Ended = time.Time{}, time.Time{} // no one round's times
	return out
}

// copyState deep-copies the parts of a state that compaction changes.
func copyState(st *decide.State) *decide.State {
	c := *st
	c.Grants = slices.Clone(st.Grants)
	c.Files = slices.Clone(st.Files) // the entries are replaced, never edited
	c.Rounds = make([]decide.RoundRecord, len(st.Rounds))
	for i, r := range st.Rounds {
		r.Fingerprints = slices.Clone(r.Fingerprints)
		r.FirstSeen = slices.Clone(r.FirstSeen)
		if r.Movement != nil {
			m := *r.Movement
			r.Movement = &m
		}
		r.Tasks = slices.Clone(r.Tasks)
		r.Issues = slices.Clone(r.Issues)
		c.Rounds[i] = r
	}
	return &c
}
