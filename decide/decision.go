package decide

import "time"

// Outcome is the normalized decision a workflow `if:` tests.
type Outcome string

// The three outcomes.
const (
	Converge Outcome = "converge"
	Fix      Outcome = "fix"
	Escalate Outcome = "escalate"
)

// Status of a decision: complete, or partial when it was cut short.
const (
	StatusComplete = "complete"
	StatusPartial  = "partial"
)

// Schemas of the JSON documents gcloop writes.
const (
	DecisionSchema = "gcloop/decision/v1"
	StateSchema    = "gcloop/state/v1"
)

// Task is one unit of follow-up work, in the seed task format.
type Task struct {
	ID          string   `json:"task_id"`
	Type        string   `json:"type"`
	Iteration   int      `json:"iteration"`
	Title       string   `json:"title"`
	TargetFiles []string `json:"target_files"`
	Findings    []string `json:"findings"`
	Acceptance  string   `json:"acceptance"`
	DependsOn   []string `json:"depends_on"`
	// Fingerprints identify the tracked findings (blocking findings,
	// failing tests) the task is about, sorted; a fix issue carries them
	// to be closed when they are all fixed and reopened when one comes
	// back. Not part of the seed task format.
	Fingerprints []string `json:"-"`
}

// Metric is one named before/after figure shown in the report (debt score,
// coverage).
type Metric struct {
	Name   string   `json:"name"`
	Before *float64 `json:"before"`
	After  *float64 `json:"after"`
	Unit   string   `json:"unit,omitempty"`
}

// Decision is the judgment of one round of one loop.
type Decision struct {
	Loop      Loop
	ID        string // loop id (defaults to the loop name)
	Outcome   Outcome
	Verdict   string // the loop's own word (DESIGN §2)
	Forced    bool   // converged because rounds ran out
	Advisory  bool   // converged with open findings noted
	Stalled   bool   // stopped because rounds made no progress
	Round     int
	MaxRounds int // effective cap, including granted extra rounds
	Score     *float64
	Signal    string
	// Threshold is the review score at or above which a review converges
	// (review loop only; nil elsewhere).
	Threshold *float64
	Counts    Counts
	Coverage  *float64 // percent, coverage loop only
	PassRate  *float64 // 0–1, coverage loop only
	Target    *float64 // percent, coverage loop only
	// Regressions is set for the validation loop (nil when unknown).
	Regressions *int
	Tasks       []Task
	Reasons     []string
	Notes       []string
	Status      string

	// Summary is the one-line summary of the round (for coverage, the
	// "Round n for L: coverage a% -> b%" line).
	Summary string
	// Prose is a critic's own prose summary (tasks.csv findings column).
	Prose string
	// Findings are the round's findings, most severe first.
	Findings []Finding
	// Fingerprints identify the round's blocking findings (or failing
	// tests) across rounds, for stall detection.
	Fingerprints []string
	// Movement says how the tracked findings (those Fingerprints
	// identify) moved since the previous round: fixed, new, persisting.
	Movement Movement
	// Since maps each of Fingerprints to the round it was first seen in
	// (this round for a new one).
	Since map[string]int
	// Fixed are the tracked findings of the previous round that this round
	// no longer has, the oldest first.
	Fixed []FixedFinding
	// Returned are the new fingerprints (against the previous round) that
	// an earlier round carried: fixed findings that came back, whose fix
	// issue is reopened.
	Returned []string
	// Metrics are before/after figures for the report.
	Metrics []Metric
	// Dimensions are per-dimension audit scores.
	Dimensions []Dimension
	// Checks are the validation checks as counted.
	Checks []Check
	// Failures are the failing tests of a coverage round.
	Failures []TestCase
	// Files is the per-file coverage of a coverage round, as read.
	Files []FileCoverage
	// PrevFiles is the per-file coverage of round PrevFilesRound, the
	// newest earlier round that kept one (State.FilesBefore); nil when none.
	PrevFiles      []FileCoverage
	PrevFilesRound int
	// NextSteps are the ways on, one line each (commands after an
	// escalation, what the next round must do after a fix).
	NextSteps []string
	// Layer is the coverage layer, if any.
	Layer string
	// SHA is the head commit the round judged, if known.
	SHA string
	// Time is when the decision was made (passed in, never read).
	Time time.Time
	// History holds every round of the loop, oldest first, this one last.
	History []RoundRecord
	// WithoutData says why a loop converged without the data it judges —
	// a critique with no critique data, or with data that could not be
	// read (the loop's own fallback) — naming the file; "" otherwise. The
	// report leads with it and the check run is neutral; the decision
	// JSON does not carry it.
	WithoutData string
	// Refused, when set, is why the driver refused the round's evidence
	// before reading it (an artifact over its budget, a zip bomb): one
	// line naming what and the limit. Nothing was judged.
	Refused string
}

// Converged reports whether the decision ends the loop successfully.
func (d *Decision) Converged() bool { return d.Outcome == Converge }
