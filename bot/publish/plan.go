package publish

// The issue of each task: its target, title and body.

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// digitsRE finds runs of digits, taken out of a task title to make a
// target that stays the same from round to round.
var digitsRE = lazyre.New(`[0-9]+`)

// plan builds the issue of every task.
func (s SyncSpec) plan() []PlannedIssue {
	paired := map[string]bool{}
	for _, t := range s.Tasks {
		for _, d := range t.DependsOn {
			paired[d] = true
			paired[t.ID] = true
		}
	}
	labels := s.labels()
	seen := map[string]bool{}
	out := make([]PlannedIssue, 0, len(s.Tasks))
	for _, t := range s.Tasks {
		var target, what string
		if t.Type == "fix" && len(t.TargetFiles) == 1 && t.TargetFiles[0] != "" && !paired[t.ID] {
			target = "file\x00" + t.TargetFiles[0]
			what = "fix " + plainTitle(t.TargetFiles[0], titleRunes)
		} else {
			name := t.Title
			if strings.TrimSpace(name) == "" {
				name = t.ID
			}
			target = "task\x00" + strings.ToLower(strings.Join(strings.Fields(digitsRE().ReplaceAllString(name, "#")), " "))
			what = plainTitle(name, titleRunes)
		}
		for n := 2; seen[target]; n++ {
			target = strings.TrimSuffix(target, "\x00"+strconv.Itoa(n-1)) + "\x00" + strconv.Itoa(n)
		}
		seen[target] = true
		key := issueKey(s.PR, target)
		out = append(out, PlannedIssue{
			TaskID: t.ID,
			Key:    key,
			Title:  s.title(what),
			Labels: slices.Clone(labels),
			Body:   s.body(t, key),
			// The marker keeps the first maxMarkedFingerprints.
			Fingerprints: t.Fingerprints[:min(len(t.Fingerprints), maxMarkedFingerprints)],
		})
	}
	return out
}

// capped orders plans most severe first (stable) and splits them at
// MaxIssues into the issues to write and the skipped rest.
func (s SyncSpec) capped(plans []PlannedIssue) (keep, rest []PlannedIssue) {
	limit := s.MaxIssues
	if limit <= 0 {
		limit = DefaultMaxIssues
	}
	rank := func(p PlannedIssue) int {
		if sev, ok := s.Severity[p.TaskID]; ok && sev > 0 {
			return int(sev)
		}
		return int(decide.Low) + 1
	}
	slices.SortStableFunc(plans, func(a, b PlannedIssue) int { return rank(a) - rank(b) })
	if len(plans) <= limit {
		return plans, nil
	}
	return plans[:limit:limit], plans[limit:]
}

// title renders "gcloop: <what> (PR #<n>, round <r>)" within titleRunes,
// shortening what with an ellipsis.
func (s SyncSpec) title(what string) string {
	tail := fmt.Sprintf(" (PR #%d, round %d)", s.PR, s.Round)
	room := titleRunes - len([]rune("gcloop: ")) - len([]rune(tail))
	return "gcloop: " + plainTitle(what, room) + tail
}

// plainTitle sanitizes artifact text for an issue title (DESIGN §5.2).
// Titles are plain text, so nothing is escaped (it would show): what could
// act is removed instead — control and invisible formatting characters
// (bidi overrides, zero-width characters), the characters of Markdown and
// HTML (` * ~ < > [ ] \ |, so no code span, link, emphasis or marker),
// every '@' (no mention) and a '#' before a digit (no cross-reference).
// Line breaks and tabs become spaces, runs of spaces one, and the text is
// capped at limit runes with an ellipsis.
func plainTitle(s string, limit int) string {
	var kept []rune
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\u2028' || r == '\u2029':
			r = ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		case strings.ContainsRune("`*~<>[]\\|@", r):
			continue
		}
		kept = append(kept, r)
	}
	// From the end: a '#' is dropped when a digit or a dropped '#' follows.
	out := make([]rune, 0, len(kept))
	ref := false
	for i := len(kept) - 1; i >= 0; i-- {
		r := kept[i]
		if r == '#' && ref {
			continue
		}
		ref = r >= '0' && r <= '9'
		out = append(out, r)
	}
	slices.Reverse(out)
	out = []rune(strings.Join(strings.Fields(string(out)), " "))
	if limit > 0 && len(out) > limit {
		out = append(out[:limit-1:limit-1], '…')
	}
	return string(out)
}

// maxBodyFiles bounds the target files (and the tasks depended on)
// listed in an issue body.
const maxBodyFiles = 50

// body renders the issue body of a task within IssueBodyLimit, cutting
// findings (then files) with "… and N more".
func (s SyncSpec) body(t decide.Task, key string) string {
	nf, nfiles := len(t.Findings), min(len(t.TargetFiles), maxBodyFiles)
	out := s.renderBody(t, key, nf, nfiles)
	for len(out) > IssueBodyLimit && (nf > 0 || nfiles > 0) {
		if nf > 0 {
			nf = nf * 3 / 4
		} else {
			nfiles = nfiles * 3 / 4
		}
		out = s.renderBody(t, key, nf, nfiles)
	}
	return out
}

func (s SyncSpec) renderBody(t decide.Task, key string, nFindings, nFiles int) string {
	var b strings.Builder
	pr := fmt.Sprintf("#%d", s.PR)
	if u, ok := linkURL(s.PRURL); ok {
		pr = fmt.Sprintf("[#%d](%s)", s.PR, u)
	}
	fmt.Fprintf(&b, "Fix task of the gcloop %s loop `%s` on %s, round %d.\n\n", s.Loop, s.LoopID, pr, s.Round)
	fmt.Fprintf(&b, "- **Task:** %s (%s)\n", orDash(report.EscapeInline(t.ID)), orDash(report.EscapeInline(t.Type)))
	if t.Title != "" {
		fmt.Fprintf(&b, "- **Title:** %s\n", report.EscapeInline(t.Title))
	}
	if len(t.DependsOn) > 0 {
		deps := make([]string, 0, min(len(t.DependsOn), maxBodyFiles)+1)
		for _, d := range t.DependsOn[:min(len(t.DependsOn), maxBodyFiles)] {
			deps = append(deps, report.EscapeInline(d))
		}
		if rest := len(t.DependsOn) - maxBodyFiles; rest > 0 {
			deps = append(deps, fmt.Sprintf("… and %d more", rest))
		}
		fmt.Fprintf(&b, "- **Depends on:** %s\n", strings.Join(deps, ", "))
	}
	if len(t.TargetFiles) > 0 {
		files := make([]string, 0, nFiles+1)
		for _, f := range t.TargetFiles[:nFiles] {
			files = append(files, report.EscapeInline(f))
		}
		if rest := len(t.TargetFiles) - nFiles; rest > 0 {
			files = append(files, fmt.Sprintf("… and %d more", rest))
		}
		fmt.Fprintf(&b, "- **Files:** %s\n", strings.Join(files, ", "))
	}
	b.WriteString("\n### Findings\n\n")
	if len(t.Findings) == 0 {
		b.WriteString("None listed; see the report on the pull request.\n")
	}
	for _, f := range t.Findings[:nFindings] {
		fmt.Fprintf(&b, "- %s\n", orDash(report.EscapeInline(f)))
	}
	if rest := len(t.Findings) - nFindings; rest > 0 {
		fmt.Fprintf(&b, "- … and %d more (see the report on the pull request)\n", rest)
	}
	b.WriteString("\n### Acceptance\n\n")
	if a := report.EscapeBlock(t.Acceptance); a != "" {
		b.WriteString(a + "\n")
	} else {
		b.WriteString("The next round of the loop no longer reports these findings.\n")
	}
	fm := findingsMarker(s.LoopID, t.Fingerprints)
	if fm == "" {
		b.WriteString("\n<sub>Opened by gcloop: later rounds update this issue; it is closed when the loop converges or no longer has a task for this target.</sub>\n\n")
	} else {
		b.WriteString("\n<sub>Opened by gcloop: later rounds update this issue; it is closed in the round that no longer reports its findings (or when the loop converges), and reopened if one of them comes back.</sub>\n\n")
		b.WriteString(fm + "\n")
	}
	b.WriteString(issueMarker(s.LoopID, key) + "\n")
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// linkURL accepts an http(s) URL that can stand in a markdown link as is.
func linkURL(s string) (string, bool) {
	if s == "" || len(s) > 2048 || strings.ContainsAny(s, " \t\r\n()<>[]\"'`\\") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", false
	}
	return s, true
}
