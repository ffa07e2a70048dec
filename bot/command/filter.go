package command

import "strings"

// Event is the part of an issue_comment event (webhook or the action's
// event file) that commands need.
type Event struct {
	Action     string // created, edited or deleted
	CommentID  int64
	Body       string
	Author     string // the commenter's login
	AuthorType string // User, Bot or Organization, as GitHub sends it
	IsPR       bool   // the comment is on a pull request, not an issue
	Owner      string
	Repo       string
	Number     int
}

// Why Filter ignores an event.
const (
	IgnoredAction    = "only newly created comments run commands"
	IgnoredNotPR     = "the comment is on an issue, not a pull request"
	IgnoredNoAuthor  = "the comment has no author"
	IgnoredBot       = "comments by bots never run commands"
	IgnoredNoCommand = "the comment holds no /gc command"
)

// Filter applies the guards that come before any trust check, in order:
// created comments only (an edit must not replay or smuggle a command),
// pull requests only, no bots (by type, or a login ending in "[bot]",
// which only GitHub Apps can have), then a command must parse. It returns
// the command, or why the event is ignored. Filter has no side effects;
// the commenter's permission is checked next, by Authorize.
func Filter(ev Event) (cmd Command, why string, ok bool) {
	switch {
	case ev.Action != "created":
		return Command{}, IgnoredAction, false
	case !ev.IsPR:
		return Command{}, IgnoredNotPR, false
	case strings.TrimSpace(ev.Author) == "":
		return Command{}, IgnoredNoAuthor, false
	case IsBot(ev.Author, ev.AuthorType):
		return Command{}, IgnoredBot, false
	}
	cmd, ok = Parse(ev.Body)
	if !ok {
		return Command{}, IgnoredNoCommand, false
	}
	return cmd, "", true
}

// IsBot reports whether a commenter is a bot: of type Bot, or a login
// ending in "[bot]".
func IsBot(login, userType string) bool {
	return strings.EqualFold(userType, "Bot") || strings.HasSuffix(strings.ToLower(login), "[bot]")
}
