package report

// Findings across rounds: the movement line under the heading, the status
// of each tracked finding and the folded list of the findings fixed.

import (
	"fmt"

	"github.com/gcloop/gcloop/decide"
)

// tracked reports whether the decision classified its findings against
// a previous round: a decision of round 2 or later made by decide.Decide.
// A loop's first round has nothing to compare with: its report shows no
// movement and no status (every finding would be "new").
func (w *writer) tracked() bool {
	return w.d.Since != nil && w.d.Movement.Previous > 0 && w.d.Refused == ""
}

// movement is the line under the heading: how the blocking findings (and
// failing tests) moved since the previous round, "3 fixed, 1 new, 4 still
// open since round 1". Nothing in a loop's first round.
func (w *writer) movement() {
	if !w.tracked() {
		return
	}
	w.printf("**Since round %d:** %s.\n\n", w.d.Movement.Previous, w.d.Movement.String())
}

// statusCell is the status of a tracked finding or failing test: "new" or
// "persisting since round r"; "—" when it is not tracked.
func (w *writer) statusCell(status string, since int) string {
	switch status {
	case decide.FindingNew:
		return "🆕\u00a0new"
	case decide.FindingPersisting:
		return fmt.Sprintf("persisting since round %d", since)
	}
	return "—"
}

// fixed lists, folded, the tracked findings of the previous round that
// this round no longer has. The state keeps fingerprints only, so a fixed
// finding is named by its fingerprint and the rounds it was open in; the
// earlier round's report showed it in full.
func (w *writer) fixed() {
	fs := w.d.Fixed
	if !w.tracked() || len(fs) == 0 {
		return
	}
	prev := w.d.Movement.Previous
	w.openDetails(fmt.Sprintf("%s since round %d", capital(plural(len(fs), "finding")+" fixed"), prev))
	w.printf("Blocking findings and failing tests of round %d that round %d no longer reports, known by their fingerprint (loop, file and rule or message — not the line):\n\n", prev, w.d.Round)
	w.line("| fingerprint | open since | fixed in |")
	w.line("|---|---:|---:|")
	n := cut(len(fs), w.lim.items)
	for _, f := range fs[:n] {
		if w.full() {
			break
		}
		w.printf("| `%s` | round %d | round %d |\n", w.text(f.Fingerprint), f.Since, w.d.Round)
	}
	w.more(len(fs)-n, "fixed findings")
	w.line("")
	w.closeDetails()
}
