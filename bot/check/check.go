// Package check publishes a loop's decision where branch protection can
// require it: a check run named "gcloop / <loop id>" on the judged commit,
// or — where the token may not write checks (no `checks: write`, or a
// personal token) — a commit status with the same context.
//
// A check run is the only gate that also works in the fork-safe
// workflow_run split, where the judging run is attached to no pull request.
package check

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-github/v62/github"
)

// checksAPI is the part of go-github's ChecksService a check run needs.
type checksAPI interface {
	CreateCheckRun(ctx context.Context, owner, repo string, opts github.CreateCheckRunOptions) (*github.CheckRun, *github.Response, error)
	UpdateCheckRun(ctx context.Context, owner, repo string, id int64, opts github.UpdateCheckRunOptions) (*github.CheckRun, *github.Response, error)
}

// statusAPI is the part of go-github's RepositoriesService the fallback
// needs.
type statusAPI interface {
	CreateStatus(ctx context.Context, owner, repo, ref string, status *github.RepoStatus) (*github.RepoStatus, *github.Response, error)
}

// Conclusions of a check run (GitHub's words).
const (
	Success        = "success"         // converged or approved
	ActionRequired = "action_required" // a fix round
	Failure        = "failure"         // escalated or aborted
	Neutral        = "neutral"         // a partial decision
)

// Limits GitHub sets on a check run's output.
const (
	// MaxSummary is the most characters a summary may have.
	MaxSummary = 65535
	// perRequest is the most annotations one request may carry.
	perRequest = 50
	// MaxAnnotations bounds the annotations of one check run, so that a
	// huge review costs at most MaxAnnotations/50 requests.
	MaxAnnotations = 200
	// maxDescription is the most characters of a commit status description.
	maxDescription = 140
	// maxTitle bounds the check run's title.
	maxTitle = 255
)

// Annotation levels.
const (
	LevelFailure = "failure"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// Annotation is a finding shown on a line of the pull request's diff.
type Annotation struct {
	Path    string // slash-separated, relative to the repository root
	Line    int    // 1-based
	Level   string // LevelFailure, LevelWarning or LevelNotice
	Title   string
	Message string
}

// Spec is one decision to publish.
type Spec struct {
	Owner, Repo string
	// SHA is the judged commit.
	SHA string
	// LoopID names the check: "gcloop / <LoopID>".
	LoopID string
	// Conclusion is one of Success, ActionRequired, Failure, Neutral.
	Conclusion string
	// Title is the decision in one line; Summary is the report (Markdown).
	Title, Summary string
	// DetailsURL links the run that decided, "" for none.
	DetailsURL string
	// Annotations are the findings with a file and a line, most severe
	// first; past MaxAnnotations they are counted in the summary.
	Annotations []Annotation
	// ID is the check run this loop already has on SHA (from the round
	// state), 0 for none: it is updated instead of adding a second run.
	ID int64
	// Actions are the check run's buttons (at most MaxActions); a commit
	// status, which has none, drops them.
	Actions []Action
	// Now stamps completed_at.
	Now time.Time
}

// Name is the check's name for a loop id.
func Name(loopID string) string { return "gcloop / " + loopID }

// Result is what Publish did.
type Result struct {
	// ID and URL are the check run's; zero when a status was written.
	ID  int64
	URL string
	// Status is set when the check run was refused and a commit status
	// was written instead; Note then says why, for the report.
	Status bool
	Note   string
	// Planned is set by a dry run, which records the check run and writes
	// nothing.
	Planned bool
	// Requests counts the requests made.
	Requests int
}

// Publish writes the check run of spec: it updates spec.ID when set (a
// re-run of the same round) or creates one, then adds the annotations
// beyond the first 50 in batches of 50. When GitHub refuses the check run
// for permission (403 that is not a rate limit), it writes a commit status
// with the same context and says so in Result.Note.
func Publish(ctx context.Context, checks checksAPI, statuses statusAPI, spec Spec) (Result, error) {
	if err := spec.validate(); err != nil {
		return Result{}, err
	}
	var res Result
	anns, dropped := spec.annotations()
	summary := fitSummary(spec.Summary, dropped)
	title := cut(oneLine(spec.Title), maxTitle)
	out := func(batch []*github.CheckRunAnnotation) *github.CheckRunOutput {
		return &github.CheckRunOutput{Title: github.String(title), Summary: github.String(summary), Annotations: batch}
	}
	first := anns[:min(len(anns), perRequest)]
	completed := &github.Timestamp{Time: spec.Now.UTC()}
	var (
		run *github.CheckRun
		err error
	)
	if spec.ID != 0 {
		res.Requests++
		run, _, err = checks.UpdateCheckRun(ctx, spec.Owner, spec.Repo, spec.ID, github.UpdateCheckRunOptions{
			Name: Name(spec.LoopID), DetailsURL: optional(spec.DetailsURL), Status: github.String("completed"),
			Conclusion: github.String(spec.Conclusion), CompletedAt: completed, Output: out(first), Actions: updatedActions(spec.Actions)})
		if ghclient.Classify(err) == ghclient.KindNotFound {
			spec.ID, run, err = 0, nil, nil // deleted meanwhile: create it again
		}
	}
	if spec.ID == 0 && err == nil {
		res.Requests++
		run, _, err = checks.CreateCheckRun(ctx, spec.Owner, spec.Repo, github.CreateCheckRunOptions{
			Name: Name(spec.LoopID), HeadSHA: spec.SHA, DetailsURL: optional(spec.DetailsURL), Status: github.String("completed"),
			Conclusion: github.String(spec.Conclusion), CompletedAt: completed, Output: out(first), Actions: githubActions(spec.Actions)})
	}
	if ghclient.Classify(err) == ghclient.KindPermission {
		return publishStatus(ctx, statuses, spec, title, res, err)
	}
	if err != nil {
		return res, fmt.Errorf("write check run %q on %s: %w", Name(spec.LoopID), short(spec.SHA), ghclient.Explained(err))
	}
	res.ID, res.URL = run.GetID(), run.GetHTMLURL()
	for rest := anns[len(first):]; len(rest) > 0; rest = rest[min(len(rest), perRequest):] {
		res.Requests++
		_, _, err := checks.UpdateCheckRun(ctx, spec.Owner, spec.Repo, res.ID, github.UpdateCheckRunOptions{
			Name: Name(spec.LoopID), Output: out(rest[:min(len(rest), perRequest)])})
		if err != nil {
			return res, fmt.Errorf("annotate check run %q: %w", Name(spec.LoopID), ghclient.Explained(err))
		}
	}
	return res, nil
}

// publishStatus writes the commit status that stands in for a refused
// check run.
func publishStatus(ctx context.Context, statuses statusAPI, spec Spec, title string, res Result, refused error) (Result, error) {
	state := map[string]string{Success: "success", Neutral: "success", ActionRequired: "failure", Failure: "failure"}[spec.Conclusion]
	res.Requests++
	_, _, err := statuses.CreateStatus(ctx, spec.Owner, spec.Repo, spec.SHA, &github.RepoStatus{
		State: github.String(state), Context: github.String(Name(spec.LoopID)),
		Description: github.String(cut(title, maxDescription)), TargetURL: optional(spec.DetailsURL)})
	if err != nil {
		return res, fmt.Errorf("check run refused (%s), and the commit status too: %w", ghclient.Describe(refused), ghclient.Explained(err))
	}
	res.Status = true
	res.Note = fmt.Sprintf("the check run was refused (%s): published as the commit status %q instead; grant `checks: write` for a check run", ghclient.Describe(refused), Name(spec.LoopID))
	return res, nil
}

func (s Spec) validate() error {
	switch {
	case s.Owner == "" || s.Repo == "":
		return fmt.Errorf("check run: repository %q/%q is incomplete", s.Owner, s.Repo)
	case s.SHA == "":
		return fmt.Errorf("check run: no commit sha")
	case s.LoopID == "":
		return fmt.Errorf("check run: no loop id")
	}
	switch s.Conclusion {
	case Success, ActionRequired, Failure, Neutral:
		return validateActions(s.Actions)
	}
	return fmt.Errorf("check run: conclusion %q, want success, action_required, failure or neutral", s.Conclusion)
}

// annotations converts the findings GitHub can place, at most
// MaxAnnotations, and counts the rest.
func (s Spec) annotations() (out []*github.CheckRunAnnotation, dropped int) {
	for _, a := range s.Annotations {
		if a.Path == "" || a.Line < 1 || a.Message == "" {
			continue
		}
		if len(out) == MaxAnnotations {
			dropped++
			continue
		}
		level := a.Level
		if level != LevelFailure && level != LevelWarning {
			level = LevelNotice
		}
		out = append(out, &github.CheckRunAnnotation{Path: github.String(a.Path), StartLine: github.Int(a.Line), EndLine: github.Int(a.Line),
			AnnotationLevel: github.String(level), Message: github.String(cut(a.Message, 64*1024)), Title: optional(cut(oneLine(a.Title), maxTitle))})
	}
	return out, dropped
}

// fitSummary cuts the report to GitHub's limit, on a line boundary, with
// a note of what was cut and of annotations left out.
func fitSummary(s string, dropped int) string {
	var tail string
	if dropped > 0 {
		tail = fmt.Sprintf("\n\n%d more findings with a file and line are not annotated.", dropped)
	}
	if utf8.RuneCountInString(s)+utf8.RuneCountInString(tail) <= MaxSummary {
		return s + tail
	}
	tail = "\n\n… the report is cut here: the full report is in the job summary and the report comment." + tail
	keep := []rune(s)[:MaxSummary-utf8.RuneCountInString(tail)]
	if i := strings.LastIndexByte(string(keep), '\n'); i > 0 {
		keep = []rune(string(keep)[:i])
	}
	return string(keep) + tail
}

// cut shortens s to at most n characters, ending in "…" when cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func short(sha string) string { return sha[:min(len(sha), 7)] }

// ConclusionOf is the check run conclusion of a decision: success when it
// converged (approved included), action_required for a fix round, failure
// for an escalation (an abort included), neutral when it was cut short or
// converged without the data it judges (Decision.WithoutData).
func ConclusionOf(d *decide.Decision) string {
	switch {
	case d.Status == decide.StatusPartial, d.WithoutData != "":
		return Neutral
	case d.Outcome == decide.Converge:
		return Success
	case d.Outcome == decide.Fix:
		return ActionRequired
	}
	return Failure
}
