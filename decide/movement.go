package decide

import (
	"fmt"
	"sort"
)

// The status of a tracked finding against the previous round (DESIGN §5.9).
const (
	FindingNew        = "new"
	FindingPersisting = "persisting"
	FindingFixed      = "fixed"
)

// Movement says how a round's tracked findings — its blocking findings and
// failing tests, those its Fingerprints identify — moved since the
// previous round: how many the previous round had that this one has not
// (fixed), how many it has that the previous round had not (new), and how
// many both have (persisting).
type Movement struct {
	// Previous is the round compared with; 0 in a loop's first round,
	// where every finding is new.
	Previous   int `json:"previous"`
	Fixed      int `json:"fixed"`
	New        int `json:"new"`
	Persisting int `json:"persisting"`
	// Since is the earliest round in which a persisting finding was first
	// seen ("still open since round Since"); 0 when none persists.
	Since int `json:"since,omitempty"`
}

// FixedFinding is a finding of the previous round that this round no
// longer has: its fingerprint and the round it was first seen in.
type FixedFinding struct {
	Fingerprint string
	Since       int
}

// comparison is the one answer to "the same finding as last round":
// fingerprints of round cur matched against those of round prev.
type comparison struct {
	added, kept, gone []string // sorted
}

// compare matches two rounds' fingerprints. Stall detection and the
// movement both read it, so they never disagree on what persisted.
func compare(prev, cur []string) comparison {
	had := make(map[string]bool, len(prev))
	for _, f := range prev {
		had[f] = true
	}
	var c comparison
	has := make(map[string]bool, len(cur))
	for _, f := range cur {
		if has[f] {
			continue
		}
		has[f] = true
		if had[f] {
			c.kept = append(c.kept, f)
		} else {
			c.added = append(c.added, f)
		}
	}
	for f := range had {
		if !has[f] {
			c.gone = append(c.gone, f)
		}
	}
	sort.Strings(c.added)
	sort.Strings(c.kept)
	sort.Strings(c.gone)
	return c
}

// firstSeen returns the round in which each fingerprint of round r was
// first seen, from r.FirstSeen; a round outside 1…r.N, or a record without
// (or with a misaligned) FirstSeen, dates a fingerprint to r itself.
func firstSeen(r *RoundRecord) func(f string) int {
	var idx map[string]int
	if len(r.FirstSeen) == len(r.Fingerprints) && len(r.FirstSeen) > 0 {
		idx = make(map[string]int, len(r.Fingerprints))
		for i, f := range r.Fingerprints {
			idx[f] = i
		}
	}
	return func(f string) int {
		if i, ok := idx[f]; ok {
			if n := r.FirstSeen[i]; n > 0 && n < r.N {
				return n
			}
		}
		return r.N
	}
}

// track classifies the fingerprints of round n against prev (nil in a
// loop's first round): the movement, the first round of every fingerprint
// of round n (new ones: n), the findings it fixed and the fingerprints new
// against prev. A previous record
// written before the state kept first rounds (no Since) dates what
// persists from its own round.
func track(prev *RoundRecord, n int, cur []string) (m Movement, since map[string]int, fixed []FixedFinding, added []string) {
	var before []string
	if prev != nil {
		before = prev.Fingerprints
	}
	c := compare(before, cur)
	m = Movement{New: len(c.added), Persisting: len(c.kept), Fixed: len(c.gone)}
	since = make(map[string]int, len(c.added)+len(c.kept))
	for _, f := range c.added {
		since[f] = n
	}
	if prev == nil {
		return m, since, nil, c.added
	}
	m.Previous = prev.N
	seen := firstSeen(prev)
	for _, f := range c.kept {
		s := seen(f)
		since[f] = s
		if m.Since == 0 || s < m.Since {
			m.Since = s
		}
	}
	fixed = make([]FixedFinding, 0, len(c.gone))
	for _, f := range c.gone {
		fixed = append(fixed, FixedFinding{Fingerprint: f, Since: seen(f)})
	}
	sort.SliceStable(fixed, func(i, j int) bool { return fixed[i].Since < fixed[j].Since })
	return m, since, fixed, c.added
}

// firstSeenList lists the first round of each fingerprint in order, for
// the round record of round n; nil when every one is new in round n (a
// list of small numbers costs the state far less than a map keyed by
// fingerprint).
func firstSeenList(fps []string, since map[string]int, n int) []int {
	out := make([]int, len(fps))
	older := false
	for i, f := range fps {
		s, ok := since[f]
		if !ok || s <= 0 || s > n {
			s = n
		}
		out[i] = s
		older = older || s < n
	}
	if !older {
		return nil
	}
	return out
}

// String renders the movement as the report's lead line: "3 fixed, 1 new,
// 4 still open since round 1"; parts that are zero are left out, and a
// round with nothing followed on either side says so.
func (m Movement) String() string {
	var parts []string
	if m.Fixed > 0 {
		parts = append(parts, fmt.Sprintf("%d fixed", m.Fixed))
	}
	if m.New > 0 {
		parts = append(parts, fmt.Sprintf("%d new", m.New))
	}
	if m.Persisting > 0 {
		s := fmt.Sprintf("%d still open", m.Persisting)
		if m.Since > 0 {
			s += fmt.Sprintf(" since round %d", m.Since)
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "nothing open, as in the previous round"
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out += ", " + p
	}
	return out
}

// FindingStatus is the status of one of the round's findings — new or
// persisting for a tracked (blocking) finding, "" for one that is not
// tracked (medium and low findings never block and are not followed) —
// and the round it was first seen in (0 when not tracked).
func (d *Decision) FindingStatus(f Finding) (status string, since int) {
	if f.Severity != Critical && f.Severity != High {
		return "", 0
	}
	return d.trackedStatus(Fingerprint(d.ID, f))
}

// TestStatus is the status of a failing test of the round, new or
// persisting, and the round it was first seen in.
func (d *Decision) TestStatus(name string) (status string, since int) {
	return d.trackedStatus(TestFingerprint(d.ID, name))
}

func (d *Decision) trackedStatus(fp string) (string, int) {
	since, ok := d.Since[fp]
	switch {
	case !ok:
		return "", 0
	case since < d.Round:
		return FindingPersisting, since
	}
	return FindingNew, since
}

// returned are the fingerprints among added (new against the previous
// round) that an earlier round carried: findings that were fixed and came
// back. Rounds whose fingerprints compaction dropped tell nothing.
func returned(history []RoundRecord, added []string) []string {
	if len(added) == 0 || len(history) < 2 {
		return nil
	}
	isNew := make(map[string]bool, len(added))
	for _, f := range added {
		isNew[f] = true
	}
	var out []string
	for _, r := range history[:len(history)-1] {
		for _, f := range r.Fingerprints {
			if isNew[f] {
				out = append(out, f)
				delete(isNew, f)
			}
		}
	}
	sort.Strings(out)
	return out
}
