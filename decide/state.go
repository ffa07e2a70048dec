package decide

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// Loop statuses kept in the state.
const (
	StateOpen      = "open"
	StateConverged = "converged"
	StateEscalated = "escalated"
	StateApproved  = "approved"
	StateAborted   = "aborted"
)

// RoundRecord is one evaluated round in the state.
type RoundRecord struct {
	N            int       `json:"n"`
	SHA          string    `json:"sha"`
	RunID        int64     `json:"run_id,omitempty"`
	RunAttempt   int       `json:"run_attempt,omitempty"`
	Time         time.Time `json:"time"`
	Decision     Outcome   `json:"decision"`
	Verdict      string    `json:"verdict"`
	Stalled      bool      `json:"stalled,omitempty"`
	Score        *float64  `json:"score"`
	Signal       string    `json:"signal,omitempty"`
	Counts       Counts    `json:"counts"`
	Coverage     *float64  `json:"coverage"`
	PassRate     *float64  `json:"pass_rate"`
	Regressions  *int      `json:"regressions,omitempty"`
	Fingerprints []string  `json:"fingerprints"`
	// FirstSeen holds, for each of Fingerprints (same order), the round it
	// was first seen in; omitted when every one is new in this round. A
	// list of another length than Fingerprints is ignored.
	FirstSeen []int `json:"first_seen,omitempty"`
	// Movement counts the tracked findings fixed, new and persisting
	// against the previous round (nil in records written before it).
	Movement *Movement `json:"movement,omitempty"`
	Tasks    []string  `json:"tasks"`
	Issues   []int     `json:"issues"`
	Commit   string    `json:"commit,omitempty"`
	Actor    string    `json:"actor,omitempty"`
	// Check is the check run (or commit status) written for the round.
	Check *CheckRecord `json:"check,omitempty"`
	// Started and Ended bound the round: the critic's workflow run
	// (run_started_at → updated_at) when the round judged a completed
	// one, else when gcloop began and recorded the round. Both zero in a
	// state written before they were kept, or folded by compaction.
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
}

// Duration is how long the round took (Ended − Started); false when the
// record does not say (a time missing, or the end before the start).
func (r RoundRecord) Duration() (time.Duration, bool) {
	if r.Started.IsZero() || r.Ended.IsZero() || r.Ended.Before(r.Started) {
		return 0, false
	}
	return r.Ended.Sub(r.Started), true
}

// CheckRecord is the check run of a round: its id (0 when a commit status
// stood in for it) and a digest of what it shows, so that a re-run that
// changes nothing writes nothing.
type CheckRecord struct {
	ID     int64  `json:"id,omitempty"`
	Status bool   `json:"status,omitempty"`
	Digest string `json:"digest"`
}

// Grant is one extra round granted by a `/gc retry` after an escalation.
type Grant struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// Action records a /gc command that changed the loop: who and when.
type Action struct {
	Command string    `json:"command"` // retry, approve or abort
	By      string    `json:"by"`
	At      time.Time `json:"at"`
}

// State is the history of one loop on one PR (DESIGN §4).
type State struct {
	Schema    string   `json:"schema"`
	Loop      Loop     `json:"loop"`
	ID        string   `json:"id"`
	MaxRounds int      `json:"max_rounds"`
	Status    string   `json:"status"`
	Grants    []Grant  `json:"grants"`
	Actions   []Action `json:"actions,omitempty"`
	// NewRound is set by an authorized /gc retry: the next evaluation
	// starts a new round even on the same head sha.
	NewRound bool          `json:"new_round,omitempty"`
	Rounds   []RoundRecord `json:"rounds"`
	// Files is the per-file coverage of the latest rounds of a coverage
	// loop (at most two: the newest and the one before it), so that a
	// report can show what changed per file since the previous round.
	Files []RoundFiles `json:"files,omitempty"`
}

// RoundFiles is the per-file coverage of one round: path → [covered
// lines, total lines].
type RoundFiles struct {
	N     int                 `json:"n"`
	Files map[string][2]int64 `json:"files"`
}

// MaxRoundFiles is the most files whose coverage a round keeps in the
// state; a larger report keeps none (a partial list would show the files
// left out as new ones), so that a state stays far below the decoder's
// size cap.
const MaxRoundFiles = 2000

// RecordFiles keeps the per-file coverage of round n: it replaces an
// earlier entry of round n (a re-run), drops entries of later rounds and
// keeps only the newest entry before n. No files, or more than
// MaxRoundFiles, drop round n's entry.
func (s *State) RecordFiles(n int, files []FileCoverage) {
	var before *RoundFiles
	for i := range s.Files {
		if f := &s.Files[i]; f.N < n && (before == nil || f.N > before.N) {
			before = f
		}
	}
	var kept []RoundFiles
	if before != nil {
		kept = append(kept, *before)
	}
	if len(files) > 0 && len(files) <= MaxRoundFiles {
		m := make(map[string][2]int64, len(files))
		for _, f := range files {
			m[f.Path] = [2]int64{f.Covered, f.Total}
		}
		kept = append(kept, RoundFiles{N: n, Files: m})
	}
	s.Files = kept
}

// FilesBefore returns the per-file coverage of the newest round before n
// that kept one, sorted by path, and that round's number; nil and 0 when
// there is none.
func (s *State) FilesBefore(n int) ([]FileCoverage, int) {
	var best *RoundFiles
	for i := range s.Files {
		if f := &s.Files[i]; f.N < n && (best == nil || f.N > best.N) {
			best = f
		}
	}
	if best == nil {
		return nil, 0
	}
	out := make([]FileCoverage, 0, len(best.Files))
	for p, c := range best.Files {
		out = append(out, FileCoverage{Path: p, Covered: c[0], Total: c[1]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, best.N
}

// NewState returns the empty state of a loop.
func NewState(loop Loop, id string, maxRounds int) *State {
	return &State{Schema: StateSchema, Loop: loop, ID: id, MaxRounds: maxRounds, Status: StateOpen,
		Grants: []Grant{}, Rounds: []RoundRecord{}}
}

// Last returns the latest round, or nil.
func (s *State) Last() *RoundRecord {
	if s == nil || len(s.Rounds) == 0 {
		return nil
	}
	return &s.Rounds[len(s.Rounds)-1]
}

// Next returns the round to decide for a head sha and the history before
// it. A sha equal to the last round's re-decides that round (an idempotent
// re-run), unless a /gc retry asked for a new round; any other sha, or an
// empty one, starts the next round.
func (s *State) Next(sha string) (round int, history []RoundRecord) {
	last := s.Last()
	if last == nil {
		return 1, nil
	}
	if sha != "" && sha == last.SHA && !s.NewRound {
		return last.N, s.Rounds[:len(s.Rounds)-1]
	}
	return last.N + 1, s.Rounds
}

// Superseded reports whether workflow run runID, whatever its attempt, is older
// than the run the loop's last round recorded: GitHub hands out run ids in
// increasing order, so such a run was started before the one last judged —
// a slow run delivered late, or a re-run of an older run — and judges an
// older head, or undoes a later judgment of this one. Its judgment must
// not replace or add a round. The last round's own run (a re-run, any
// attempt) is not stale, nor is any run when the last round recorded no
// run id (a round judged outside a workflow run). The attempt does not
// change the answer: a re-run keeps its run's id, and its run_started_at
// is the re-run's, so only the id orders runs.
func (s *State) Superseded(runID int64) bool {
	last := s.Last()
	return last != nil && runID != 0 && last.RunID != 0 && runID < last.RunID
}

// Record puts a decided round into the state: it replaces a round with the
// same number (re-run) or appends, drops rounds after it, and sets the
// loop status from the outcome.
func (s *State) Record(r RoundRecord) {
	kept := s.Rounds[:0:0]
	for _, old := range s.Rounds {
		if old.N < r.N {
			kept = append(kept, old)
		}
	}
	s.Rounds = append(kept, r)
	s.NewRound = false
	switch r.Decision {
	case Converge:
		s.Status = StateConverged
	case Escalate:
		s.Status = StateEscalated
	default:
		s.Status = StateOpen
	}
}

// maxStateBytes caps an encoded state; larger ones are corrupt.
const maxStateBytes = 1 << 20

// DecodeState reads a state JSON document. Anything but a valid
// gcloop/state/v1 document is an error.
func DecodeState(r io.Reader) (*State, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxStateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStateBytes {
		return nil, fmt.Errorf("state larger than %d bytes", maxStateBytes)
	}
	var s State
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("state is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("state: more data after the state, at byte %d: want one JSON document", dec.InputOffset())
	}
	if s.Schema != StateSchema {
		return nil, fmt.Errorf("state schema %q, want %q", s.Schema, StateSchema)
	}
	if !ValidID(s.ID) {
		return nil, fmt.Errorf("state id %q: %s", s.ID, IDRule)
	}
	if _, err := ParseLoop(string(s.Loop)); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	prev := 0
	for i, r := range s.Rounds {
		if r.N <= prev {
			return nil, fmt.Errorf("state round %d has n=%d after n=%d", i+1, r.N, prev)
		}
		prev = r.N
	}
	if s.Grants == nil {
		s.Grants = []Grant{}
	}
	if s.Rounds == nil {
		s.Rounds = []RoundRecord{}
	}
	return &s, nil
}

// Encode writes the state as indented JSON.
func (s *State) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// idRE is compiled on first use, not at start-up: the action's start
// pays for no pattern it does not need.
var idRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^` + IDSyntax + `$`) })

// IDSyntax is the syntax of a loop id: safe in a marker, a
// file name (.gcloop/<id>/), a label and a check name; never "." or "..".
const IDSyntax = `[a-z0-9][a-z0-9_-]{0,31}`

// IDRule says what a loop id must be, for error messages.
const IDRule = "want " + IDSyntax + ": a lowercase letter or digit, then up to 31 lowercase letters, digits, '_' or '-'"

// ValidID reports whether id can name a loop: it matches IDSyntax. It is
// the one validator of loop ids, wherever they enter.
func ValidID(id string) bool { return idRE().MatchString(id) }
