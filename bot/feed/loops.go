package feed

import (
	"encoding/json"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/gcloop/gcloop/bot/event"
)

// States of a loop row.
const (
	StatePending = "pending" // events, but no round started or decided yet
	StateRunning = "running" // a round started and has not decided
	StateDecided = "decided" // the latest round decided
	StateFailed  = "failed"  // the latest round failed with an error
)

// Loop is one row of GET /api/loops: one loop of one pull request, folded
// from the retained events of that repository, pull request and loop id.
// Events without all three (a delivery, a command on an issue) make no row.
//
//	{"repo":"o/r","pr":7,"loop":"review","state":"decided","round":2,
//	 "max_rounds":3,"decision":"fix","verdict":"…","status":"complete",
//	 "title":"…","decided":"RFC3339","error":"","time":"RFC3339",
//	 "last_id":42,"last_type":"check","events":9}
type Loop struct {
	Repo string `json:"repo"` // owner/name
	PR   int    `json:"pr"`
	Loop string `json:"loop"` // the loop id
	// State is pending, running, decided or failed (see the constants).
	State string `json:"state"`
	// Round, MaxRounds, Decision (converge, fix or escalate), Verdict,
	// Status (complete or partial) and Title are those of the latest
	// decision; zero and "" before the first one.
	Round     int    `json:"round"`
	MaxRounds int    `json:"max_rounds"`
	Decision  string `json:"decision"`
	Verdict   string `json:"verdict"`
	Status    string `json:"status"`
	Title     string `json:"title"`
	// Decided is when the latest decision was logged; null before the first.
	Decided *time.Time `json:"decided"`
	// Error is the latest error when it came after the latest round
	// started or decided; "" otherwise.
	Error string `json:"error"`
	// Time, LastID and LastType are those of the loop's newest event.
	Time     time.Time `json:"time"`
	LastID   int64     `json:"last_id"`
	LastType string    `json:"last_type"`
	// Events is how many retained events the loop has.
	Events int `json:"events"`
}

// maxText caps the free text a row carries from an event.
const maxText = 500

// key identifies a loop row.
type key struct {
	repo string
	pr   int
	loop string
}

// folder folds events, in ID order, into loop rows.
type folder struct {
	rows map[key]*Loop
}

func newFolder() *folder { return &folder{rows: map[key]*Loop{}} }

// decisionData is what a decision event's data holds.
type decisionData struct {
	Round     int    `json:"round"`
	MaxRounds int    `json:"max_rounds"`
	Decision  string `json:"decision"`
	Verdict   string `json:"verdict"`
	Status    string `json:"status"`
	Title     string `json:"title"`
}

// add folds e into its row.
func (f *folder) add(e event.Event) {
	if e.Repo == "" || e.PR <= 0 || e.Loop == "" {
		return
	}
	k := key{e.Repo, e.PR, e.Loop}
	row := f.rows[k]
	if row == nil {
		row = &Loop{Repo: e.Repo, PR: e.PR, Loop: e.Loop, State: StatePending}
		f.rows[k] = row
	}
	row.Events++
	row.Time, row.LastID, row.LastType = e.Time, e.ID, e.Type
	switch e.Type {
	case event.Round:
		row.State, row.Error = StateRunning, ""
	case event.Decision:
		var d decisionData
		// Data the bot wrote; a field of another type is left out, the
		// rest of the row stands.
		_ = json.Unmarshal(e.Data, &d)
		row.State, row.Error = StateDecided, ""
		row.Round, row.MaxRounds = d.Round, d.MaxRounds
		row.Decision, row.Verdict = cut(d.Decision), cut(d.Verdict)
		row.Status, row.Title = cut(d.Status), cut(d.Title)
		t := e.Time
		row.Decided = &t
	case event.Error:
		var d struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(e.Data, &d)
		row.State, row.Error = StateFailed, cut(d.Error)
		if row.Error == "" {
			row.Error = "error"
		}
	}
}

// loops returns the rows, the most recently active first.
func (f *folder) loops() []Loop {
	out := make([]Loop, 0, len(f.rows))
	for _, r := range f.rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastID > out[j].LastID })
	return out
}

// cut caps s at maxText bytes without splitting a character.
func cut(s string) string {
	if len(s) <= maxText {
		return s
	}
	n := maxText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
