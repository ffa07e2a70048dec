package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// The lead of a report is its first three lines: the heading says the
// decision, why() says what it rests on and next() what happens now.

// why is line two: the figures the decision rests on, in a sentence.
func (w *writer) why() {
	d := w.d
	if d.Refused != "" {
		w.printf("**Why:** ⚠️ the evidence was refused, nothing was judged: %s.\n\n", strings.TrimSuffix(w.richLine(d.Refused), "."))
		return
	}
	var parts []string
	switch d.Loop {
	case decide.Review:
		parts = append(parts, w.scoreWhy("score", 10))
		parts = append(parts, w.findingsWhy())
	case decide.Audit:
		s := w.scoreWhy("audit score", 10)
		if d.Signal != "" {
			s += ", signal " + w.text(d.Signal)
		}
		parts = append(parts, s, w.findingsWhy())
	case decide.Critique:
		if d.WithoutData != "" {
			parts = append(parts, "converged without critique data: "+w.text(d.WithoutData))
			break
		}
		parts = append(parts, w.findingsWhy())
	case decide.Validation:
		parts = append(parts, w.regressionsWhy())
	case decide.Coverage:
		parts = append(parts, w.coverageWhy()...)
	default:
		parts = append(parts, w.findingsWhy())
	}
	switch {
	case d.Stalled:
		parts = append(parts, "no progress over the last rounds (stalled)")
	case d.Forced && d.Round > 0 && d.MaxRounds > 0 && d.Round >= d.MaxRounds && !strings.Contains(d.Verdict, "approved"):
		parts = append(parts, fmt.Sprintf("rounds ran out (%d of %d)", d.Round, d.MaxRounds))
	case d.Forced:
		parts = append(parts, "stopped by a maintainer")
	case d.Outcome == decide.Escalate && d.MaxRounds > 0 && d.Round >= d.MaxRounds:
		parts = append(parts, fmt.Sprintf("the round cap is reached (%d of %d)", d.Round, d.MaxRounds))
	}
	if d.Status == decide.StatusPartial {
		parts = append(parts, "⚠️ the decision was cut short (partial)")
	}
	w.printf("**Why:** %s.\n\n", strings.Join(nonEmpty(parts), "; "))
}

func nonEmpty(ss []string) []string {
	out := ss[:0:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// scoreWhy says the score against the review threshold when there is one.
func (w *writer) scoreWhy(name string, scale float64) string {
	d := w.d
	if d.Score == nil {
		return name + " unknown"
	}
	s := fmt.Sprintf("%s %s / %s", name, num(*d.Score, 1), num(scale, 0))
	if d.Threshold != nil {
		if *d.Score >= *d.Threshold {
			s += ", at or above the threshold " + num(*d.Threshold, 1)
		} else {
			s += ", below the threshold " + num(*d.Threshold, 1)
		}
	}
	if prev, n, ok := w.previous(func(r decide.RoundRecord) *float64 { return r.Score }); ok {
		s += sinceRound(*d.Score-prev, 1, "", n)
	}
	return s
}

// findingsWhy counts the blocking findings and the files they are in.
func (w *writer) findingsWhy() string {
	c := w.d.Counts
	switch {
	case c.Blocking() > 0:
		s := fmt.Sprintf("%s (%s)", plural(c.Blocking(), "blocking finding"), sevList(c.Critical, c.High, 0, 0))
		if n := blockingFiles(w.d.Findings); n > 0 {
			s += " in " + plural(n, "file")
		}
		if minor := c.Medium + c.Low; minor > 0 {
			s += fmt.Sprintf("; %s", plural(minor, "minor finding"))
		}
		return s
	case c.Total() > 0:
		return fmt.Sprintf("no blocking finding, %s (%s)", plural(c.Total(), "minor finding"), sevList(0, 0, c.Medium, c.Low))
	}
	return "no findings"
}

// sevList names the non-zero severity counts.
func sevList(crit, high, med, low int) string {
	var parts []string
	for _, p := range []struct {
		n    int
		name string
	}{{crit, "critical"}, {high, "high"}, {med, "medium"}, {low, "low"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.name))
		}
	}
	return strings.Join(parts, ", ")
}

// blockingFiles counts the distinct files of critical and high findings.
func blockingFiles(fs []decide.Finding) int {
	seen := map[string]bool{}
	for _, f := range fs {
		if (f.Severity == decide.Critical || f.Severity == decide.High) && f.File != "" {
			seen[f.File] = true
		}
	}
	return len(seen)
}

func (w *writer) regressionsWhy() string {
	d := w.d
	if d.Regressions == nil {
		return "regressions unknown"
	}
	var failing []string
	for _, c := range d.Checks {
		if c.Failed > 0 && c.Name != "quality" {
			failing = append(failing, fmt.Sprintf("%s %d", w.text(c.Name), c.Failed))
		}
	}
	s := plural(*d.Regressions, "regression")
	if *d.Regressions == 0 {
		s = "no regression"
	} else if len(failing) > 0 {
		s += " (" + strings.Join(failing, ", ") + ")"
	}
	if prev, n, ok := w.previous(func(r decide.RoundRecord) *float64 {
		if r.Regressions == nil {
			return nil
		}
		v := float64(*r.Regressions)
		return &v
	}); ok {
		s += sinceRound(float64(*d.Regressions)-prev, 0, "", n)
	}
	return s
}

func (w *writer) coverageWhy() []string {
	d := w.d
	var parts []string
	if d.Coverage == nil {
		parts = append(parts, "coverage unavailable")
	} else {
		s := "coverage " + percent(d.Coverage)
		if d.Target != nil {
			if *d.Coverage >= *d.Target {
				s += ", at or above the target " + percent(d.Target)
			} else {
				s += ", below the target " + percent(d.Target)
			}
		}
		if prev, n, ok := w.previous(func(r decide.RoundRecord) *float64 { return r.Coverage }); ok {
			s += sinceRound(*d.Coverage-prev, 2, " points", n)
		}
		parts = append(parts, s)
	}
	switch n := len(d.Failures); {
	case n > 0:
		parts = append(parts, plural(n, "failing test"))
	case d.PassRate != nil:
		parts = append(parts, "all tests pass")
	}
	return parts
}

// previous is the figure of the newest earlier round that has one.
func (w *writer) previous(get func(decide.RoundRecord) *float64) (float64, int, bool) {
	h := w.d.History
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].N >= w.d.Round {
			continue
		}
		if v := get(h[i]); v != nil {
			return *v, h[i].N, true
		}
	}
	return 0, 0, false
}

// next is line three, the next action: what happens now.
func (w *writer) next() {
	d := w.d
	var s string
	switch {
	case d.Refused != "" && len(d.NextSteps) > 0:
		s = w.richLine(strings.Join(d.NextSteps, "; "))
	case d.Outcome == decide.Fix:
		s = w.fixNext()
	case d.Outcome == decide.Escalate && noneStep(d.NextSteps) != "":
		s = "nothing — " + w.richLine(noneStep(d.NextSteps))
	case d.Outcome == decide.Escalate:
		s = "a maintainer decides — comment " + w.commands() + " on this pull request (see *How to go on* under Decision)"
	case noneStep(d.NextSteps) != "":
		s = "nothing — " + w.richLine(noneStep(d.NextSteps))
	case d.Forced || d.Stalled:
		s = "nothing more runs: the loop stopped short of its goal — read what is still open before merging"
	case d.Advisory:
		s = "nothing — the loop is done; the open findings below are advice"
	default:
		s = "nothing — the loop is done"
	}
	w.printf("**Next action:** %s.\n\n", strings.TrimSuffix(s, "."))
}

// noneStep is the reason of a next step "none: <reason>", or "".
func noneStep(steps []string) string {
	if len(steps) == 1 {
		if r, ok := strings.CutPrefix(steps[0], "none: "); ok && r != "" {
			return r
		}
	}
	return ""
}

func (w *writer) richLine(s string) string { return rich(s, w.lim.msgRunes) }

// fixNext says which fix round comes, what it has to work on and how it
// starts.
func (w *writer) fixNext() string {
	d := w.d
	s := w.nextRound()
	var work []string
	rec := w.thisRound()
	if rec != nil && len(rec.Issues) > 0 {
		work = append(work, "fix "+pluralWord(len(rec.Issues), "issue")+" "+issueRefs(rec.Issues, 10))
	} else if len(d.Tasks) > 0 {
		work = append(work, plural(len(d.Tasks), "task")+" below")
	}
	if rec != nil && rec.Commit != "" {
		work = append(work, "test-only commit "+w.text(shortSHA(rec.Commit))+" pushed")
	}
	if len(work) > 0 {
		s += " — " + strings.Join(work, "; ")
	}
	if w.o.Dispatched {
		return s + "; its workflow was started"
	}
	return s + "; gcloop judges the next push (or `/gc retry`)"
}

// nextRound names the round a fix decision starts: "fix round 3 of 3".
func (w *writer) nextRound() string {
	d := w.d
	kind := "fix round "
	if d.Loop == decide.Critique || d.Loop == decide.Audit {
		kind = "revision round "
	}
	s := kind + strconv.Itoa(d.Round+1)
	if d.MaxRounds > 0 {
		s += fmt.Sprintf(" of %d", d.MaxRounds)
	}
	return s
}

// thisRound is the history record of the decided round, nil if none.
func (w *writer) thisRound() *decide.RoundRecord {
	h := w.d.History
	if len(h) > 0 && h[len(h)-1].N == w.d.Round {
		return &h[len(h)-1]
	}
	return nil
}

// idSuffix is " <loop id>" for /gc commands, "" when the id cannot stand
// in one.
func (w *writer) idSuffix() string {
	if decide.ValidID(w.loopName()) {
		return " " + w.loopName()
	}
	return ""
}

// gcRE finds a /gc command in gcloop's own next steps.
var gcRE = lazyre.New("`/gc ([a-z]+)`")

// withID names the loop in the /gc commands of a step.
func (w *writer) withID(step string) string {
	return gcRE().ReplaceAllString(step, "`/gc $1"+w.idSuffix()+"`")
}

// commands lists the /gc commands of an escalation's next steps.
func (w *writer) commands() string {
	var cmds []string
	seen := map[string]bool{}
	for _, s := range w.d.NextSteps {
		for _, m := range gcRE().FindAllStringSubmatch(s, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				cmds = append(cmds, "`/gc "+m[1]+w.idSuffix()+"`")
			}
		}
	}
	if len(cmds) == 0 {
		id := w.idSuffix()
		cmds = []string{"`/gc retry" + id + "`", "`/gc approve" + id + "`", "`/gc abort" + id + "`"}
	}
	if len(cmds) == 1 {
		return cmds[0]
	}
	return strings.Join(cmds[:len(cmds)-1], ", ") + " or " + cmds[len(cmds)-1]
}

// issueRefs renders issue numbers, at most max of them.
func issueRefs(ns []int, max int) string {
	k := cut(len(ns), max)
	out := make([]string, 0, k+1)
	for _, n := range ns[:k] {
		out = append(out, "#"+strconv.Itoa(n))
	}
	if k < len(ns) {
		out = append(out, fmt.Sprintf("+%d more", len(ns)-k))
	}
	return strings.Join(out, ", ")
}

// plural renders "1 file", "2 files".
func plural(n int, what string) string { return strconv.Itoa(n) + " " + pluralWord(n, what) }

func pluralWord(n int, what string) string {
	if n == 1 {
		return what
	}
	return what + "s"
}

// sinceRound renders the change of a figure since round n.
func sinceRound(delta float64, prec int, unit string, n int) string {
	if num(delta, prec) == "0" {
		return fmt.Sprintf(" (unchanged since round %d)", n)
	}
	return fmt.Sprintf(" (%s%s since round %d)", signed(delta, prec), unit, n)
}
