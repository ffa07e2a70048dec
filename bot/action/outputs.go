package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/wfcmd"
	"github.com/sethvargo/go-githubactions"
)

// maxAnnotations is how many annotations a step shows (DESIGN §5.5).
const maxAnnotations = 50

// fullReport is the report without the comment's size limit: the job
// summary and report.md carry the whole history.
func fullReport(d *decide.Decision) (string, error) {
	return report.Markdown(d, report.Options{})
}

func nonNilTasks(ts []decide.Task) []decide.Task {
	if ts == nil {
		return []decide.Task{}
	}
	return ts
}

// Outputs are the step outputs of DESIGN §5.5.
func Outputs(res *Result, f Files) map[string]string {
	d := res.Decision
	out := map[string]string{
		"decision":      string(d.Outcome),
		"verdict":       d.Verdict,
		"round":         strconv.Itoa(d.Round),
		"max-rounds":    strconv.Itoa(d.MaxRounds),
		"score":         num(d.Score),
		"coverage":      num(d.Coverage),
		"status":        d.Status,
		"report":        f.Report,
		"decision-json": f.Decision,
		"tasks":         f.Tasks,
		"issues":        joinInts(res.Issues),
		"commit":        res.Commit,
		"comment-url":   res.CommentURL,
	}
	return out
}

func num(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// Publish writes the outputs, the job summary and the annotations through
// the runner's file commands. Without GITHUB_OUTPUT or GITHUB_STEP_SUMMARY
// (a run by hand) the outputs go to the log instead: go-githubactions
// panics on a missing file command. A file command that cannot be written
// is a *FileCommandError before anything is written, never a panic.
func Publish(a *githubactions.Action, c *Context, res *Result, f Files, log io.Writer) error {
	if err := checkFileCommands(c); err != nil {
		return err
	}
	outs := Outputs(res, f)
	for _, k := range outputOrder {
		if c.OutputPath == "" {
			fmt.Fprintf(log, "output %s=%s\n", k, wfcmd.Escape(outs[k]))
			continue
		}
		a.SetOutput(k, outs[k])
	}
	if c.SummaryPath != "" {
		full, err := fullReport(res.Decision)
		if err != nil {
			return err
		}
		a.AddStepSummary(capSummary(full, maxSummary))
	}
	annotate(a, res.Decision)
	return nil
}

// maxSummary is the most bytes of a job summary GitHub shows: a larger
// one is dropped whole.
const maxSummary = 1 << 20

// capSummary cuts a report to limit bytes on a line boundary, with a note
// that the full report is in the report output file.
func capSummary(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	note := fmt.Sprintf("\n\n> The report is cut here: GitHub shows job summaries of at most %d KiB. The full report (%d KiB) is the file in the step's `report` output.\n", limit>>10, len(s)>>10)
	keep := s[:limit-len(note)]
	if i := strings.LastIndexByte(keep, '\n'); i > 0 {
		keep = keep[:i]
	}
	return keep + note
}

var outputOrder = []string{"decision", "verdict", "round", "max-rounds", "score", "coverage", "status",
	"report", "decision-json", "tasks", "issues", "commit", "comment-url"}

// annotate issues one ::error (critical) or ::warning (high) annotation
// per blocking finding with its file and line, at most maxAnnotations; the
// rest are counted in a notice.
func annotate(a *githubactions.Action, d *decide.Decision) {
	n, rest := 0, 0
	for _, fd := range d.Findings {
		if fd.Severity > decide.High {
			continue
		}
		if n == maxAnnotations {
			rest++
			continue
		}
		n++
		fields := map[string]string{"title": fmt.Sprintf("gcloop %s: %s", d.ID, fd.Severity)}
		if fd.File != "" {
			fields["file"] = fd.File
			if fd.Line > 0 {
				fields["line"] = strconv.Itoa(fd.Line)
			}
		}
		msg := oneLine(fd.Message)
		if fd.Severity == decide.Critical {
			a.WithFieldsMap(fields).Errorf("%s", msg)
		} else {
			a.WithFieldsMap(fields).Warningf("%s", msg)
		}
	}
	if rest > 0 {
		a.Noticef("gcloop %s: %d more critical/high findings not annotated (see the job summary)", d.ID, rest)
	}
	if d.WithoutData != "" {
		a.WithFieldsMap(map[string]string{"title": "gcloop " + d.ID}).Warningf("converged without critique data: %s", oneLine(d.WithoutData))
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// AppendDiscoveries appends gc_decision (and fix_applied, after a commit)
// lines to a discoveries.ndjson in the workspace.
func AppendDiscoveries(ws, rel string, res *Result) error {
	p, err := evidence.InWorkspace(ws, rel)
	if err != nil {
		return fmt.Errorf("input discoveries %w", err)
	}
	d := res.Decision
	type line struct {
		TS     string         `json:"ts"`
		Worker string         `json:"worker"`
		Type   string         `json:"type"`
		Data   map[string]any `json:"data"`
	}
	ts := d.Time.UTC().Format("2006-01-02T15:04:05Z")
	var taskIDs []string
	for _, t := range d.Tasks {
		taskIDs = append(taskIDs, t.ID)
	}
	lines := []line{{TS: ts, Worker: "gcloop", Type: "gc_decision", Data: map[string]any{
		"loop": d.Loop, "id": d.ID, "round": d.Round, "max_rounds": d.MaxRounds, "decision": d.Outcome,
		"verdict": d.Verdict, "score": d.Score, "coverage": d.Coverage, "tasks": taskIDs, "status": d.Status,
	}}}
	if res.Commit != "" {
		lines = append(lines, line{TS: ts, Worker: "gcloop", Type: "fix_applied", Data: map[string]any{
			"loop": d.Loop, "id": d.ID, "round": d.Round, "commit": res.Commit,
		}})
	}
	owner, err := ownerOf(ws)
	if err != nil {
		return fmt.Errorf("append to %s: %w", rel, err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return fmt.Errorf("append to %s: open the workspace: %w", rel, err)
	}
	defer root.Close()
	name := filepath.FromSlash(p)
	// Appending keeps an existing file's owner and mode; a file gcloop
	// makes goes to the workspace's owner, not to the container's root.
	_, statErr := root.Lstat(name)
	f, err := root.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("append to %s: %w", rel, err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		if err := owner.give(root, name); err != nil {
			f.Close()
			return fmt.Errorf("append to %s: %w", rel, err)
		}
	}
	enc := json.NewEncoder(f)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			f.Close()
			return fmt.Errorf("append to %s: %w", rel, err)
		}
	}
	return f.Close()
}

// readLocalConfig reads the configuration file from the workspace; a
// missing file configures nothing.
func readLocalConfig(ws, name string) (*config.File, error) {
	p, err := evidence.InWorkspace(ws, name)
	if err != nil {
		return nil, fmt.Errorf("input config %w", err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, fmt.Errorf("read %s: open the workspace: %w", name, err)
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(p))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	return config.Parse(name, f)
}
