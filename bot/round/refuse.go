package round

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
)

// VerdictRefused is the verdict of a round whose evidence the driver
// refused to read (an artifact over the budget, a zip bomb, an unsafe
// entry).
const VerdictRefused = "REFUSED"

// Refuse ends a round whose evidence was refused before it could be read:
// why is one line naming what was refused and the limit. Nothing is
// judged: the report comment shows the refusal with a neutral check run
// on the head, and the loop's state keeps its rounds — no round is
// recorded, no fix issue opened or closed, nothing dispatched — so the
// next run on this head, with evidence gcloop can read, is the round the
// refused one would have been. (A round already judged on this head has
// its check run turned neutral and forgets it, so that its next judgment
// writes the check again.) Refuse returns an error only when GitHub
// cannot be reached or the configuration cannot be read; a driver retries
// those as any other round.
func (e *Engine) Refuse(ctx context.Context, pull *Pull, why string, res *Result) error {
	if pull == nil {
		return errors.New("refuse the round: no pull request")
	}
	file, err := e.config(ctx, pull)
	if err != nil {
		return err
	}
	id := e.Opts.ID
	if id == "" {
		if id, err = e.loopID(file, nil); err != nil {
			return err
		}
	}
	found, err := e.GH.FindReport(ctx, pull.Number, id)
	if err != nil {
		return fmt.Errorf("read the report comment: %w", err)
	}
	d, st, err := e.refused(file, found.State, id, pull.HeadSHA, why)
	if err != nil {
		return err
	}
	d.Notes = append(d.Notes, found.Notes...)
	res.Decision = d
	lg := e.log()
	lg.Group("decision")
	lg.Note("decision: " + CheckTitle(d))
	lg.Group("effects on GitHub")
	if e.Opts.Check && ctx.Err() == nil {
		// A throwaway record: the state keeps no refused round. A round
		// judged on this head before has its check run turned neutral, and
		// forgets it, so that the next judgment writes its own again.
		var rec decide.RoundRecord
		e.publishCheck(ctx, res, pull.HeadSHA, priorCheck(st, d.Round, pull.HeadSHA), &rec)
		if rr := recordedRound(st, d.Round, pull.HeadSHA); rr != nil && rec.Check != nil {
			rr.Check = nil
		}
	}
	body, err := report.Body(d, st, report.Options{BlobURL: e.Event.BlobURL(pull.HeadSHA), RunURL: e.Event.RunURL()}, e.scope(pull.Number), []byte(e.Opts.StateKey))
	if err != nil {
		return fmt.Errorf("render the report: %w", err)
	}
	res.Report = body
	if e.Opts.Comment && ctx.Err() == nil {
		c, err := e.GH.UpsertReport(ctx, pull.Number, found.Comment, body)
		if err != nil {
			res.apiDown(fmt.Errorf("write the report comment: %w", err))
			d.Notes = append(d.Notes, "the report comment could not be written: "+ghclient.Explain(err))
		} else {
			res.CommentURL = c.GetHTMLURL()
			lg.Printf("report comment %s: %s", commentChange(found.Comment, body), or(res.CommentURL, "(not written)"))
		}
	}
	logOutcome(lg, d)
	return nil
}

// refused is the decision of a refused round on sha, and the state it is
// shown with (the one found, or a fresh one).
func (e *Engine) refused(file *config.File, st *decide.State, id, sha, why string) (*decide.Decision, *decide.State, error) {
	loop, err := resolveLoop(e.Opts.Loop, id, file, nil)
	if err != nil && st != nil {
		loop, err = st.Loop, nil
	}
	if err != nil {
		return nil, nil, err
	}
	set, err := config.Resolve(loop, id, file, e.Opts.Overrides)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		st = decide.NewState(loop, id, set.Config.MaxRounds)
	}
	if st.Loop != loop || st.ID != id {
		return nil, nil, &MismatchError{ID: st.ID, Loop: st.Loop, WantID: id, WantLoop: loop}
	}
	n, history := st.Next(sha)
	d := &decide.Decision{
		Loop: loop, ID: id, Outcome: decide.Escalate, Verdict: VerdictRefused,
		Round: n, MaxRounds: set.Config.MaxRounds + len(st.Grants), Status: decide.StatusPartial,
		SHA: sha, Time: e.Now().UTC().Truncate(time.Second), Tasks: []decide.Task{},
		Reasons: []string{"evidence refused: " + why}, Refused: why,
		Notes: []string{"nothing was judged: the round is not recorded in the loop's state, and no fix issue was opened or closed"},
		NextSteps: []string{
			"upload only the evidence files gcloop reads (reports, not logs or binaries) or ask the bot's operator to raise its artifact budget",
			"then re-run the workflow: the next run on this head with evidence gcloop can read is this round",
		},
	}
	d.History = append(append([]decide.RoundRecord{}, history...), d.Record())
	return d, st, nil
}
