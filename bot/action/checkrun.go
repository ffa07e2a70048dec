package action

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/command"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/decide"
)

// publishCheck writes the round's check run on the judged commit (or the
// commit status that stands in for it) and records it in the round, so a
// re-run updates the same check run — and, when nothing changed, makes
// no request at all.
func (r *Runner) publishCheck(ctx context.Context, res *Result, sha string, prev *decide.CheckRecord, rec *decide.RoundRecord) {
	d := res.Decision
	spec := r.checkSpec(d, sha)
	if spec.Summary == "" {
		d.Notes = append(d.Notes, "the check run was not written: the report did not render")
		return
	}
	digest := checkDigest(*spec)
	if prev != nil && prev.Digest == digest {
		rec.Check = prev // a re-run that changed nothing
		return
	}
	if prev != nil {
		spec.ID = prev.ID
	}
	out, err := check.Publish(ctx, r.GH.Checks, r.GH.Repositories, *spec)
	if err != nil {
		d.Notes = append(d.Notes, "the check run was not written: "+ghclient.Explain(err))
		return
	}
	if out.Note != "" {
		d.Notes = append(d.Notes, out.Note)
	}
	rec.Check = &decide.CheckRecord{ID: out.ID, Status: out.Status, Digest: digest}
}

// checkSpec is the round's check run on sha.
func (r *Runner) checkSpec(d *decide.Decision, sha string) *check.Spec {
	summary, _ := fullReport(d) // empty when the report does not render: publishCheck refuses it
	return &check.Spec{Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, SHA: sha, LoopID: d.ID, Conclusion: check.ConclusionOf(d),
		Title: checkTitle(d), Summary: summary, DetailsURL: r.Ctx.RunURL(), Annotations: checkAnnotations(d), Now: r.Now()}
}

// checkTitle is the decision in one line: verdict, round and loop.
func checkTitle(d *decide.Decision) string {
	t := fmt.Sprintf("%s — round %d of %d (%s)", d.Verdict, d.Round, d.MaxRounds, d.ID)
	if d.Status == decide.StatusPartial {
		t += ", partial"
	}
	return t
}

// checkAnnotations places the findings that have a file and a line,
// most severe first: critical and high fail, medium warns, low notes.
func checkAnnotations(d *decide.Decision) []check.Annotation {
	var out []check.Annotation
	for _, f := range d.Findings {
		if f.File == "" || f.Line < 1 {
			continue
		}
		level := check.LevelNotice
		switch f.Severity {
		case decide.Critical, decide.High:
			level = check.LevelFailure
		case decide.Medium:
			level = check.LevelWarning
		}
		out = append(out, check.Annotation{Path: f.File, Line: f.Line, Level: level, Title: f.Severity.String(), Message: f.Message})
	}
	return out
}

// checkDigest identifies what a check run shows, so an unchanged re-run
// writes nothing.
func checkDigest(s check.Spec) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", s.SHA, s.Conclusion, s.Title, s.Summary)
	for _, a := range s.Annotations {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00", a.Path, a.Line, a.Level, strings.TrimSpace(a.Message))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// priorCheck is the check run recorded for round n on sha, nil if none.
func priorCheck(st *decide.State, n int, sha string) *decide.CheckRecord {
	if rr := recordedRound(st, n, sha); rr != nil && rr.Check != nil {
		c := *rr.Check
		return &c
	}
	return nil
}

// settleCheck turns the last round's check run into the loop's settled
// conclusion — success after /gc approve, failure after /gc abort — so
// that branch protection follows the maintainer's decision.
func (r *Runner) settleCheck(ctx context.Context, res *Result, pull *Pull, st *decide.State, cmd command.Command, author string) {
	last := st.Last()
	if last == nil {
		return
	}
	spec := check.Spec{Owner: r.Ctx.Owner, Repo: r.Ctx.Repo, SHA: last.SHA, LoopID: st.ID, Conclusion: check.Failure,
		Title: fmt.Sprintf("ABORTED by %s — round %d (%s)", author, last.N, st.ID), DetailsURL: r.Ctx.RunURL(), Now: r.Now()}
	if cmd.Verb == command.Approve {
		spec.Conclusion = check.Success
		spec.Title = fmt.Sprintf("CONVERGE (approved by %s) — round %d (%s)", author, last.N, st.ID)
	}
	spec.Summary = fmt.Sprintf("%s with `/gc %s` on #%d: the loop is settled and starts no further fix round. The report comment on the pull request has the rounds.",
		spec.Title, cmd.Verb, pull.Number)
	if last.Check != nil {
		spec.ID = last.Check.ID
	}
	out, err := check.Publish(ctx, r.GH.Checks, r.GH.Repositories, spec)
	switch {
	case err != nil:
		res.Notes = append(res.Notes, "the check run was not settled: "+ghclient.Explain(err))
	case out.Note != "":
		res.Notes = append(res.Notes, out.Note)
	}
}
