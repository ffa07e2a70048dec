package round

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/decide"
)

// DecideInput is what a round is decided on.
type DecideInput struct {
	// Loop and ID as the driver was told; "" = from the configuration
	// file's section, the evidence or the state.
	Loop decide.Loop
	ID   string
	// Evidence is the merged evidence.
	Evidence *decide.Evidence
	// File is the configuration file (nil: none); Overrides layer over it.
	File      *config.File
	Overrides config.Overrides
	// State is the loop's state as found (nil: a fresh loop).
	State *decide.State
	// SHA is the judged commit ("" unknown).
	SHA string
	// Round, when set, decides that round again instead of the next one
	// (the CLI's --round); the history is the rounds before it.
	Round int
	// RunID and RunAttempt identify the workflow run (0 outside one): a
	// re-run of a superseded run decides nothing.
	RunID      int64
	RunAttempt int
	Now        time.Time
}

// Decided is a round decided and not yet carried out.
type Decided struct {
	Decision *decide.Decision
	Settings config.Settings
	// State is the loop's state before this round is recorded (a fresh one
	// when none was found).
	State *decide.State
	// History is the rounds before this one.
	History []decide.RoundRecord
	// Final is the status of a loop a person settled (approved,
	// aborted), "" otherwise.
	Final string
}

// Decide decides a round: the loop and its settings, the round's number
// and history from the state, the critic's judgment, and a loop settled
// by /gc approve or /gc abort staying so. It is pure.
func Decide(in DecideInput) (*Decided, error) {
	st := in.State
	loop, err := resolveLoop(in.Loop, in.ID, in.File, in.Evidence)
	if err != nil {
		if st == nil || in.Loop != "" || !isNoEvidence(err) {
			return nil, err
		}
		loop = st.Loop // no evidence of any loop: the state's loop decides
	}
	id := in.ID
	if id == "" {
		id = string(loop)
		if st != nil && st.Loop == loop {
			id = st.ID
		}
	}
	set, err := config.Resolve(loop, id, in.File, in.Overrides)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = decide.NewState(loop, id, set.Config.MaxRounds)
	}
	if st.Loop != loop || st.ID != id {
		return nil, &MismatchError{ID: st.ID, Loop: st.Loop, WantID: id, WantLoop: loop}
	}
	round, history := st.Next(in.SHA)
	if in.Round > 0 {
		round, history = in.Round, roundsBefore(st.Rounds, in.Round)
	}
	if in.RunID != 0 && st.Superseded(in.RunID) {
		// A run older than the last judged one — delivered late, or
		// re-run — would judge an old head, or undo a later judgment of
		// this one: no decision, nothing written.
		return nil, staleRun(in.RunID, in.RunAttempt, st.Last())
	}
	d, err := decide.Decide(decide.Input{Loop: loop, ID: id, Evidence: in.Evidence, Config: set.Config, Round: round,
		History: history, Grants: len(st.Grants), SHA: in.SHA, Now: in.Now})
	if err != nil {
		return nil, err
	}
	d.PrevFiles, d.PrevFilesRound = st.FilesBefore(d.Round)
	final := st.Status
	if final != decide.StateApproved && final != decide.StateAborted {
		final = ""
	}
	if final != "" {
		settle(d, st)
	}
	return &Decided{Decision: d, Settings: set, State: st, History: history, Final: final}, nil
}

// ErrStaleRun marks a workflow run older than the one the loop's last
// judged round recorded: it is ignored — no round, no issue, no check, no
// comment. The error also is a *decide.NoDecisionError (the CLI's exit 1).
var ErrStaleRun = errors.New("stale workflow run")

// staleRun is the error that ignores run runID (attempt) for last.
func staleRun(runID int64, attempt int, last *decide.RoundRecord) error {
	what := fmt.Sprintf("workflow run %d", runID)
	if attempt > 1 {
		what = fmt.Sprintf("workflow run %d (a re-run, attempt %d)", runID, attempt)
	}
	return fmt.Errorf("%w: %w", ErrStaleRun, &decide.NoDecisionError{Msg: fmt.Sprintf(
		"%s is older than run %d, which round %d on %s judged: superseded, ignored — nothing decided or written; re-run the latest run, or push",
		what, last.RunID, last.N, shortSHA(last.SHA))})
}

// MismatchError is a state that holds another loop than the one decided.
type MismatchError struct {
	ID, WantID     string
	Loop, WantLoop decide.Loop
}

func (e *MismatchError) Error() string {
	if e.ID != e.WantID {
		return fmt.Sprintf("the state holds loop id %s, not %s", e.ID, e.WantID)
	}
	return fmt.Sprintf("loop id %s holds a %s loop on this pull request, not %s: give another id", e.ID, e.Loop, e.WantLoop)
}

// resolveLoop names the loop kind: as given, else the kind the
// configuration's section of id names, else the one the evidence speaks
// for.
func resolveLoop(loop decide.Loop, id string, file *config.File, ev *decide.Evidence) (decide.Loop, error) {
	if loop != "" {
		return loop, nil
	}
	if sec := file.Section(id); id != "" && sec != nil {
		return sec.Loop, nil
	}
	return sniff(ev)
}

// noEvidence is the message of a round with evidence of no loop.
const noEvidence = "no evidence of any loop found"

func isNoEvidence(err error) bool {
	nd, ok := err.(*decide.NoDecisionError)
	return ok && strings.HasPrefix(nd.Msg, noEvidence)
}

// sniff names the loop the evidence speaks for.
func sniff(ev *decide.Evidence) (decide.Loop, error) {
	kinds := ev.Kinds()
	switch len(kinds) {
	case 1:
		return kinds[0], nil
	case 0:
		return "", &decide.NoDecisionError{Msg: noEvidence + " in " + sources(ev) + ": check the evidence given, or name the loop"}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return "", &SeveralLoopsError{Loops: names}
}

func sources(ev *decide.Evidence) string {
	if ev == nil || len(ev.Sources) == 0 {
		return "the evidence"
	}
	return strings.Join(ev.Sources, ", ")
}

// SeveralLoopsError is evidence that speaks for several loops.
type SeveralLoopsError struct{ Loops []string }

func (e *SeveralLoopsError) Error() string {
	return fmt.Sprintf("the evidence speaks for several loops (%s): name the loop", strings.Join(e.Loops, ", "))
}

func roundsBefore(rs []decide.RoundRecord, n int) []decide.RoundRecord {
	var out []decide.RoundRecord
	for _, r := range rs {
		if r.N < n {
			out = append(out, r)
		}
	}
	return out
}

// settle overrides the decision of a loop a person already settled with
// /gc approve (converged, forced) or /gc abort (stopped): the evidence is
// still judged and shown, but no fix round starts.
func settle(d *decide.Decision, st *decide.State) {
	who := "a maintainer"
	for i := len(st.Actions) - 1; i >= 0; i-- {
		if a := st.Actions[i]; a.Command == "approve" || a.Command == "abort" {
			who = "@" + a.By + " at " + a.At.UTC().Format(time.RFC3339)
			break
		}
	}
	d.Tasks = []decide.Task{}
	d.Advisory, d.Stalled = false, false
	judged := fmt.Sprintf("%s (%s)", d.Verdict, d.Outcome)
	if st.Status == decide.StateApproved {
		d.Outcome, d.Verdict, d.Forced = decide.Converge, "CONVERGE (approved)", true
		d.Reasons = append(d.Reasons, fmt.Sprintf("the loop was force-approved by %s: it stays converged; the evidence alone says %s", who, judged))
		d.NextSteps = []string{"none: the loop was approved"}
		return
	}
	d.Outcome, d.Verdict, d.Forced = decide.Escalate, abortedVerdict, false
	d.Reasons = append(d.Reasons, fmt.Sprintf("the loop was aborted by %s: no fix round starts; the evidence alone says %s", who, judged))
	d.NextSteps = []string{"none: the loop was aborted (delete the report comment to start it over)"}
}

// abortedVerdict is the verdict of a loop /gc abort settled.
const abortedVerdict = "ABORTED"

// escalate turns a decision into an escalation a person must handle.
func escalate(d *decide.Decision, why string) {
	d.Outcome, d.Verdict = decide.Escalate, "ESCALATE"
	d.Forced, d.Advisory = false, false
	d.Tasks = []decide.Task{}
	d.Reasons = append(d.Reasons, why)
	d.NextSteps = decide.NextSteps(d)
}
