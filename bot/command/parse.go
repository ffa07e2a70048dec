// Package command handles the `/gc` comment commands of DESIGN §6: it
// finds a command in a PR comment (Parse), drops events that must never
// run one (Filter), checks the commenter's repository permission through
// the collaborator-permission API (Authorize), reacts to the comment
// (React), applies the command to a loop's state (Apply) and words the
// reply (Reply).
//
// Parsing and applying are pure; only Authorize and React talk to GitHub,
// through narrow interfaces that go-github's services satisfy.
package command

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gcloop/gcloop/decide"
)

// Verb is what a command asks for.
type Verb string

// The verbs of DESIGN §6.
const (
	Retry   Verb = "retry"   // start a new round now; after an escalation, grant one
	Approve Verb = "approve" // force-approve the loop
	Abort   Verb = "abort"   // stop the loop
	Status  Verb = "status"  // refresh the report
	Help    Verb = "help"    // list the commands
)

// Verbs lists the verbs in the order the help shows them.
var Verbs = []Verb{Retry, Approve, Abort, Status, Help}

// Command is one `/gc` command found in a comment.
type Command struct {
	Verb Verb
	// LoopID is the optional second word: the loop id the command is for.
	// Empty means every loop of the PR that the command applies to.
	LoopID string
	// Line is the 1-based line of the comment that holds the command.
	Line int
	// Unknown is the word after `/gc` when it is no verb; Verb is then Help.
	Unknown string
	// BadLoopID is a second word that cannot be a loop id (decide.ValidID);
	// Verb is then Help, so that nothing runs on a loop nobody named.
	BadLoopID string
}

// maxWord caps the unknown words kept for the reply.
const maxWord = 64

// maxBody is the most bytes a comment body can have: GitHub's limit of
// 65 536 characters, 4 bytes each at most.
const maxBody = 4 * 65536

// Parse finds the first `/gc` command in a comment body.
//
// Commands are found on the parsed Markdown (CommonMark with GFM tables,
// as GitHub renders comments): a command is a line of paragraph text that
// starts, after optional spaces, with `/gc` (any case) followed by the end
// of the line or white space. Nothing inside a block quote (including a
// lazy continuation of a quoted paragraph), a fenced or indented code
// block, an inline code span (also one spanning lines), an HTML comment or
// block, a link text, emphasis, a heading or a table is a command. List
// items are containers: `- /gc retry` is not a command (the line starts
// with the marker), but a line of the item's text that starts with `/gc`
// is.
//
// `/gc` alone or with an unknown verb yields a Help command (Unknown names
// the word); a second word that is no valid loop id yields a Help command
// with BadLoopID set. Words after the loop id, and an HTML comment
// after the command, are ignored. The first command line wins. A body
// longer than GitHub allows a comment (maxBody) holds no command.
func Parse(body string) (Command, bool) {
	if len(body) > maxBody {
		return Command{}, false
	}
	for _, l := range textLines(body) {
		if cmd, ok := parseLine(strings.TrimLeft(l.text, " \t")); ok {
			cmd.Line = l.line
			return cmd, true
		}
	}
	return Command{}, false
}

// parseLine reads a command from a line trimmed of leading spaces.
func parseLine(s string) (Command, bool) {
	if len(s) < 3 || !strings.EqualFold(s[:3], "/gc") {
		return Command{}, false
	}
	rest := s[3:]
	if rest != "" {
		r, _ := utf8.DecodeRuneInString(rest)
		if !unicode.IsSpace(r) {
			return Command{}, false // /gcretry, /gc-retry, /gcloop …
		}
	}
	if i := strings.Index(rest, "<!--"); i >= 0 {
		rest = rest[:i] // an HTML comment after the command is not part of it
	}
	words := strings.Fields(rest)
	if len(words) == 0 {
		return Command{Verb: Help}, true
	}
	cmd := Command{Verb: Verb(strings.ToLower(words[0]))}
	if !knownVerb(cmd.Verb) {
		return Command{Verb: Help, Unknown: capWord(words[0])}, true
	}
	if len(words) > 1 {
		if !decide.ValidID(words[1]) {
			return Command{Verb: Help, BadLoopID: capWord(words[1])}, true
		}
		cmd.LoopID = words[1]
	}
	return cmd, true
}

func knownVerb(v Verb) bool {
	for _, k := range Verbs {
		if v == k {
			return true
		}
	}
	return false
}

// capWord keeps at most maxWord runes of a word for a reply.
func capWord(w string) string {
	n := 0
	for i := range w {
		if n == maxWord {
			return w[:i] + "…"
		}
		n++
	}
	return w
}

// splitLines splits on CommonMark line endings: \n, \r\n and \r.
func splitLines(s string) []string {
	var out []string
	for {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}
