package report

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-github/v62/github"
)

// commentsAPI is the part of go-github's IssuesService the report comment
// needs.
type commentsAPI interface {
	ListComments(ctx context.Context, owner, repo string, number int, opts *github.IssueListCommentsOptions) ([]*github.IssueComment, *github.Response, error)
	CreateComment(ctx context.Context, owner, repo string, number int, comment *github.IssueComment) (*github.IssueComment, *github.Response, error)
	EditComment(ctx context.Context, owner, repo string, commentID int64, comment *github.IssueComment) (*github.IssueComment, *github.Response, error)
}

// commentsPerPage is the page size of comment listings (GitHub's maximum).
const commentsPerPage = 100

// maxCommentPages bounds the comment pages read looking for the state:
// 200 pages are 20 000 comments, far more than any PR holds. Past it
// FindState fails rather than miss the state and restart the loop.
const maxCommentPages = 200

// maxIgnoredNotes bounds the notes about markers in other people's
// comments; the rest are counted in one more note.
const maxIgnoredNotes = 5

// Found is what FindState found on a PR.
type Found struct {
	// Comment is the bot's report comment of the loop id, nil when there is
	// none. It is the comment to edit, also when its state is unreadable.
	Comment *github.IssueComment
	// State is the decoded state, nil when there is no comment or its
	// marker is corrupt (the loop then starts from round 1).
	State *decide.State
	// Notes say what was ignored or could not be read, for the report.
	// They are plain text (the report escapes them); logins are quoted in
	// code spans without '@'.
	Notes []string
}

// FindState reads the comments of PR pr page by page (100 a page,
// following Response.NextPage) and returns loopID's report comment
// written by gcloop, with its decoded state (DESIGN §4).
//
//   - Only comments whose author login equals trust.Login (ASCII
//     case-insensitively, nothing added or stripped) can be gcloop's; a
//     marker of loopID in anyone else's comment is ignored and noted.
//   - Such a comment must also have gcloop's shape — Header(loopID) first,
//     one state marker, as the last line — and, when trust.Key is set, a
//     valid signature over the repository, PR and loop id. One that fails
//     is not gcloop's (github-actions[bot] is shared by every workflow of
//     the repository): it is ignored, never returned for editing, and
//     noted without quoting it.
//   - A corrupt state in a trusted comment gives State nil and a note: the
//     loop starts from round 1, and Comment is still set so that the next
//     report replaces it instead of adding a second one.
//   - Several trusted comments: the oldest readable one wins (oldest by
//     creation time, then id) — a later copy cannot take over a loop;
//     with none readable, the oldest. A note names the others, which are
//     left alone.
//
// Every page is read, because an older comment may follow on a later
// page; a PR whose comments fit in one page costs exactly one request.
func FindState(ctx context.Context, api commentsAPI, owner, repo string, pr int, loopID string, trust Trust) (Found, error) {
	switch {
	case owner == "" || repo == "":
		return Found{}, fmt.Errorf("find state: repository %q/%q is incomplete, want owner and name", owner, repo)
	case pr <= 0:
		return Found{}, fmt.Errorf("find state: pull request number %d, want a positive number", pr)
	case !decide.ValidID(loopID):
		return Found{}, fmt.Errorf("find state: loop id %q: %s", loopID, decide.IDRule)
	case trust.Login == "":
		return Found{}, errors.New("find state: the bot login is empty, want the login of the token's user")
	}
	scope := Scope{Owner: owner, Repo: repo, PR: pr, LoopID: loopID}
	type candidate struct {
		c   *github.IssueComment
		st  *decide.State
		err error
	}
	var (
		cands            []candidate
		notes            []string
		ignored, misfits int
	)
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: commentsPerPage}}
	for pages := 1; ; pages++ {
		cs, resp, err := api.ListComments(ctx, owner, repo, pr, opts)
		if err != nil {
			return Found{}, fmt.Errorf("find state: list comments of PR #%d, page %d: %w", pr, max(opts.Page, 1), err)
		}
		for _, c := range cs {
			if c == nil {
				continue
			}
			_, perr := ParseMarker(c.GetBody(), loopID)
			if errors.Is(perr, ErrNoMarker) {
				continue
			}
			if !strings.EqualFold(c.GetUser().GetLogin(), trust.Login) {
				ignored++
				if ignored <= maxIgnoredNotes {
					notes = append(notes, fmt.Sprintf("state marker of loop `%s` in comment %d by `%s` ignored: only comments by `%s` are trusted",
						loopID, c.GetID(), safeLogin(c.GetUser().GetLogin()), safeLogin(trust.Login)))
				}
				continue
			}
			line, serr := stateLine(c.GetBody(), scope, trust.Key)
			if serr != nil {
				misfits++
				if misfits <= maxIgnoredNotes {
					notes = append(notes, fmt.Sprintf("comment %d by `%s` carries a state marker of loop `%s` but is not gcloop's report (%v): ignored and left alone",
						c.GetID(), safeLogin(trust.Login), loopID, serr))
				}
				continue
			}
			st, perr := ParseMarker(line, loopID)
			cands = append(cands, candidate{c: c, st: st, err: perr})
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		if resp.NextPage <= max(opts.Page, 1) {
			return Found{}, fmt.Errorf("find state: comments of PR #%d: page %d links back to page %d, want a later page", pr, max(opts.Page, 1), resp.NextPage)
		}
		if pages == maxCommentPages {
			return Found{}, fmt.Errorf("find state: PR #%d has more than %d comments; gave up looking for the state of loop %q", pr, maxCommentPages*commentsPerPage, loopID)
		}
		opts.Page = resp.NextPage
	}
	if ignored > maxIgnoredNotes {
		notes = append(notes, fmt.Sprintf("%d more state markers of loop `%s` in comments by other accounts ignored", ignored-maxIgnoredNotes, loopID))
	}
	if misfits > maxIgnoredNotes {
		notes = append(notes, fmt.Sprintf("%d more comments by `%s` with a state marker of loop `%s` that are not gcloop's report ignored", misfits-maxIgnoredNotes, safeLogin(trust.Login), loopID))
	}
	if len(cands) == 0 {
		return Found{Notes: notes}, nil
	}
	older := func(a, b *github.IssueComment) bool {
		ta, tb := a.GetCreatedAt().Time, b.GetCreatedAt().Time
		if !ta.IsZero() && !tb.IsZero() && !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return a.GetID() < b.GetID()
	}
	best := -1
	for i, k := range cands {
		switch {
		case best < 0:
			best = i
		case (k.err == nil) != (cands[best].err == nil):
			if k.err == nil {
				best = i
			}
		case older(k.c, cands[best].c):
			best = i
		}
	}
	win := cands[best]
	if len(cands) > 1 {
		var others []string
		for i, k := range cands {
			if i != best {
				others = append(others, fmt.Sprint(k.c.GetID()))
			}
		}
		notes = append(notes, fmt.Sprintf("%d comments by `%s` carry the state of loop `%s`; used comment %d, left comment(s) %s as they are",
			len(cands), safeLogin(trust.Login), loopID, win.c.GetID(), strings.Join(others, ", ")))
	}
	for i, k := range cands {
		if k.err != nil && (i == best || older(k.c, win.c)) {
			if i == best {
				notes = append(notes, fmt.Sprintf("unreadable state in comment %d (%v): the loop started from round 1", k.c.GetID(), k.err))
			} else {
				notes = append(notes, fmt.Sprintf("unreadable state in the older comment %d (%v): used the newer readable one", k.c.GetID(), k.err))
			}
		}
	}
	return Found{Comment: win.c, State: win.st, Notes: notes}, nil
}

// safeLogin makes a GitHub login safe to quote in a note: logins hold
// letters, digits and '-' (and a bot's "[bot]" suffix); anything else
// becomes '?', and it is capped at 64 bytes. The caller puts it in a code
// span, without '@', so quoting it never pings anyone.
func safeLogin(s string) string {
	if s == "" {
		return "(unknown)"
	}
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 64; i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '[', c == ']':
			b.WriteByte(c)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}
