package round

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
)

// publishCheck writes the round's check run on the judged commit (or the
// commit status that stands in for it) and records it in the round, so a
// re-run updates the same check run — and, when nothing changed, makes
// no request at all.
func (e *Engine) publishCheck(ctx context.Context, res *Result, sha string, prev *decide.CheckRecord, rec *decide.RoundRecord) {
	d := res.Decision
	spec := e.checkSpec(d, sha)
	if d.WithoutData != "" && res.Settings.WithoutData == "success" {
		spec.Conclusion = check.Success // the repository's choice (without_data: success)
	}
	if spec.Summary == "" {
		d.Notes = append(d.Notes, "the check run was not written: the report did not render")
		return
	}
	res.Check = spec
	digest := checkDigest(*spec)
	if prev != nil && prev.Digest == digest {
		rec.Check = prev // a re-run that changed nothing
		return
	}
	if prev != nil {
		spec.ID = prev.ID
	}
	out, err := e.GH.Check(ctx, *spec)
	if err != nil {
		d.Notes = append(d.Notes, "the check run was not written: "+ghclient.Explain(err))
		res.incomplete(fmt.Errorf("check run: %w", err))
		return
	}
	if out.Note != "" {
		d.Notes = append(d.Notes, out.Note)
	}
	res.checkPlanned = out.Planned
	rec.Check = &decide.CheckRecord{ID: out.ID, Status: out.Status, Digest: digest}
}

// checkSpec is the round's check run on sha.
func (e *Engine) checkSpec(d *decide.Decision, sha string) *check.Spec {
	summary, _ := report.Markdown(d, report.Options{BlobURL: e.Event.BlobURL(sha), RunURL: e.Event.RunURL()}) // empty when it does not render: publishCheck refuses it
	return &check.Spec{Owner: e.Event.Owner, Repo: e.Event.Repo, SHA: sha, LoopID: d.ID, Conclusion: check.ConclusionOf(d),
		Title: CheckTitle(d), Summary: summary, DetailsURL: e.Event.RunURL(), Annotations: checkAnnotations(d), Now: e.Now(),
		Actions: e.checkButtons(d)}
}

// checkButtons are the buttons of the round's check run: "Retry round"
// and "Approve" on an escalation a person must handle (not on an aborted
// loop, which nothing restarts), none otherwise or when the driver
// receives no clicks (Options.Buttons).
func (e *Engine) checkButtons(d *decide.Decision) []check.Action {
	if !e.Opts.Buttons || d.Outcome != decide.Escalate || d.Verdict == abortedVerdict || check.ConclusionOf(d) != check.Failure {
		return nil
	}
	return check.EscalatedActions()
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
	for _, a := range s.Actions { // none on most runs: their digests stay as they were
		fmt.Fprintf(h, "action\x00%s\x00%s\x00%s\x00", a.Identifier, a.Label, a.Description)
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
