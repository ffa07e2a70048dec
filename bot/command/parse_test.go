package command

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	none := Command{}
	tests := []struct {
		name string
		body string
		want Command
		ok   bool
	}{
		{"a bare retry is a command", "/gc retry", Command{Verb: Retry, Line: 1}, true},
		{"every verb is known", "/gc approve", Command{Verb: Approve, Line: 1}, true},
		{"abort is a verb", "/gc abort", Command{Verb: Abort, Line: 1}, true},
		{"status is a verb", "/gc status", Command{Verb: Status, Line: 1}, true},
		{"help is a verb", "/gc help", Command{Verb: Help, Line: 1}, true},
		{"the verb is case-insensitive", "/gc RETRY", Command{Verb: Retry, Line: 1}, true},
		{"the prefix is case-insensitive", "/GC Retry", Command{Verb: Retry, Line: 1}, true},
		{"a loop id follows the verb", "/gc retry coverage", Command{Verb: Retry, LoopID: "coverage", Line: 1}, true},
		{"a loop id in capitals is no loop id", "/gc abort Review-2", Command{Verb: Help, BadLoopID: "Review-2", Line: 1}, true},
		{"the loop id .. is no loop id", "/gc retry ..", Command{Verb: Help, BadLoopID: "..", Line: 1}, true},
		{"the loop id . is no loop id", "/gc retry .", Command{Verb: Help, BadLoopID: ".", Line: 1}, true},
		{"trailing words are ignored", "/gc retry coverage please, now", Command{Verb: Retry, LoopID: "coverage", Line: 1}, true},
		{"leading spaces are allowed", "   /gc retry", Command{Verb: Retry, Line: 1}, true},
		{"a tab separates words", "/gc\tretry", Command{Verb: Retry, Line: 1}, true},
		{"trailing spaces are fine", "/gc retry   ", Command{Verb: Retry, Line: 1}, true},
		{"gc alone asks for help", "/gc", Command{Verb: Help, Line: 1}, true},
		{"gc and spaces asks for help", "/gc   ", Command{Verb: Help, Line: 1}, true},
		{"an unknown verb asks for help and names the word", "/gc merge now", Command{Verb: Help, Unknown: "merge", Line: 1}, true},
		{"a verb with punctuation is unknown", "/gc retry.", Command{Verb: Help, Unknown: "retry.", Line: 1}, true},
		{"an invalid loop id asks for help", "/gc retry <b>x</b>", Command{Verb: Help, BadLoopID: "<b>x</b>", Line: 1}, true},
		{"a long unknown word is capped", "/gc " + strings.Repeat("x", 100), Command{Verb: Help, Unknown: strings.Repeat("x", 64) + "…", Line: 1}, true},
		{"gcretry is not a command", "/gcretry", none, false},
		{"gc-retry is not a command", "/gc-retry", none, false},
		{"gcloop is not a command", "/gcloop retry", none, false},
		{"a command mid-line is not a command", "please /gc retry", none, false},
		{"an empty body has no command", "", none, false},
		{"plain text has no command", "LGTM, thanks!\nShip it.", none, false},
		{"a command after text counts", "Thanks for the fix.\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a command after a blank line counts", "Thanks.\n\n/gc approve review", Command{Verb: Approve, LoopID: "review", Line: 3}, true},
		{"the first of two commands wins", "/gc abort\n/gc retry", Command{Verb: Abort, Line: 1}, true},
		{"an unknown verb first still wins", "/gc nope\n/gc retry", Command{Verb: Help, Unknown: "nope", Line: 1}, true},
		{"CRLF line endings", "hello\r\n/gc retry coverage\r\n", Command{Verb: Retry, LoopID: "coverage", Line: 2}, true},
		{"lone CR line endings", "hello\r/gc status\r", Command{Verb: Status, Line: 2}, true},

		// Block quotes (prow's lesson: "> /hold" must not trigger).
		{"a quoted command does not trigger", "> /gc retry", none, false},
		{"an indented quote does not trigger", "   > /gc retry", none, false},
		{"a nested quote does not trigger", "> > /gc retry", none, false},
		{"a quote without a space does not trigger", ">/gc retry", none, false},
		{"a lazy continuation of a quote is quoted", "> earlier words\n/gc retry", none, false},
		{"a command after the quote ends counts", "> earlier words\n\n/gc retry", Command{Verb: Retry, Line: 3}, true},
		{"an empty quote line takes no lazy line", ">\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a fence in a quote ends with the quote", "> ```\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"the command after a quoted one counts", "> /gc approve\n\n/gc abort", Command{Verb: Abort, Line: 3}, true},

		// Fenced code blocks.
		{"a backtick fence hides a command", "```\n/gc retry\n```", none, false},
		{"a tilde fence hides a command", "~~~sh\n/gc retry\n~~~", none, false},
		{"a fence with an info string hides a command", "```text\n/gc retry\n```\n", none, false},
		{"a command after the fence counts", "```\n/gc abort\n```\n/gc retry", Command{Verb: Retry, Line: 4}, true},
		{"an unclosed fence runs to the end", "```\n/gc retry", none, false},
		{"a shorter closing fence does not close", "````\n```\n/gc retry\n````", none, false},
		{"a longer closing fence closes", "```\nx\n`````\n/gc retry", Command{Verb: Retry, Line: 4}, true},
		{"a tilde does not close a backtick fence", "```\n~~~\n/gc retry\n```", none, false},
		{"a closing fence with text does not close", "```\n``` x\n/gc retry\n```", none, false},
		{"two backticks are no fence", "``\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"backticks in a backtick info string make no fence", "``` a`b\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a fence interrupts a paragraph", "text\n```\n/gc retry\n```", none, false},
		{"a fence indented by four spaces is code, not a fence", "    ```\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a fence in a list item hides a command", "- ```\n  /gc retry\n  ```", none, false},
		{"a list fence ends when the item ends", "- ```\n  x\n/gc retry", Command{Verb: Retry, Line: 3}, true},

		// Indented code blocks.
		{"an indented block after a blank line is code", "text\n\n    /gc retry", none, false},
		{"an indented first line is code", "    /gc retry", none, false},
		{"an indented line continuing a paragraph is text", "text\n    /gc retry", Command{Verb: Retry, Line: 2}, true},
		{"an indented tab is code", "\t/gc retry", none, false},
		{"indented code spans blank lines", "    a\n\n    /gc retry", none, false},
		{"three spaces are not code", "text\n\n   /gc retry", Command{Verb: Retry, Line: 3}, true},

		// HTML.
		{"an HTML comment hides a command", "<!--\n/gc retry\n-->", none, false},
		{"a one-line HTML comment then a command", "<!-- note -->\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"an inline comment hides the next lines", "see <!-- hidden\n/gc retry\n-->", none, false},
		{"an unclosed inline comment is literal", "see <!-- not closed\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a comment in a code span is literal", "use `<!--` here\n/gc retry\n-->", Command{Verb: Retry, Line: 2}, true},
		{"an escaped comment opener is literal", "use \\<!-- here\n/gc retry\n-->", Command{Verb: Retry, Line: 2}, true},
		{"the self-closing comment closes", "<!-->\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a pre block hides a command", "<pre>\n/gc retry\n</pre>", none, false},
		{"a command after a pre block counts", "<PRE>\nx\n</pre>\n/gc retry", Command{Verb: Retry, Line: 4}, true},
		{"a comment after the command is ignored", "/gc retry <!-- why -->", Command{Verb: Retry, Line: 1}, true},

		// Lists and other blocks.
		{"a command as a list item is not a command", "- /gc retry", none, false},
		{"an item continuation can be a command", "- point\n  /gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a command after a list counts", "- point\n\n/gc retry", Command{Verb: Retry, Line: 3}, true},
		{"indented item text after a blank line is text", "1. point\n\n   /gc retry", Command{Verb: Retry, Line: 3}, true},
		{"a heading ends a paragraph before indented code", "# Title\n    /gc retry", none, false},
		{"a thematic break is no list item", "* * *\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a quote in a list item hides a command", "- > /gc retry", none, false},
		{"an empty item holds the next indented line", "-\n  /gc retry", Command{Verb: Retry, Line: 2}, true},
		{"an item with indented code hides a command", "-     code\n\n      /gc retry", none, false},
		{"an ordered item not at 1 cannot interrupt a paragraph", "text\n2. x\n   /gc retry", Command{Verb: Retry, Line: 3}, true},
		{"an empty item cannot interrupt a paragraph", "text\n-\n/gc retry", Command{Verb: Retry, Line: 3}, true},

		// What ends a lazy quote paragraph.
		{"a fence after a quote is a top-level fence", "> quoted\n```\n/gc retry\n```", none, false},
		{"an HTML comment after a quote hides a command", "> quoted\n<!--\n/gc retry\n-->", none, false},
		{"a thematic break ends a quote", "> quoted\n---\n/gc retry", Command{Verb: Retry, Line: 3}, true},
		{"a heading ends a quote", "> quoted\n# Title\n/gc retry", Command{Verb: Retry, Line: 3}, true},
		{"an indented line continues a quote lazily", "> quoted\n    /gc retry", none, false},
		{"a list item ends a quote", "> quoted\n- item\n/gc retry", Command{Verb: Retry, Line: 3}, true},

		// Fence and HTML details.
		{"a fence indented by three spaces hides a command", "   ```\n/gc retry\n   ```", none, false},
		{"a closing fence indented by four does not close", "```\n    ```\n/gc retry", none, false},
		{"a script block hides a command", "<script>\n/gc retry\n</script>", none, false},
		{"a tag that only starts like pre opens an HTML block of its own", "<prefix>\n/gc retry", none, false},
		{"a tag that only starts like pre cannot interrupt a paragraph", "text\n<prefix>\n/gc retry", Command{Verb: Retry, Line: 3}, true},
		{"a pre block closed on its line hides nothing", "<pre>x</pre>\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a setext underline ends a paragraph", "Title\n===\n    /gc retry", none, false},
		{"a body longer than GitHub allows holds no command", "/gc retry\n" + strings.Repeat("x", 4*65536), none, false},
		{"a body at GitHub's limit is read", "/gc retry\n" + strings.Repeat("x", 4*65536-10), Command{Verb: Retry, Line: 1}, true},

		// Inline structure: only a line that starts with the paragraph's own text.
		{"a code span spanning lines hides a command", "see `x\n/gc retry` there", none, false},
		{"a double-backtick code span spanning lines hides a command", "``a\n/gc retry``", none, false},
		{"a blank line ends a paragraph and its open backticks", "``a\n\n/gc retry\n``", Command{Verb: Retry, Line: 3}, true},
		{"a code span over three lines hides a command", "run `\n/gc retry\n`", none, false},
		{"an unclosed backtick is literal", "see `x\n/gc retry", Command{Verb: Retry, Line: 2}, true},
		{"a code span alone is no command", "`/gc retry`", none, false},
		{"link text spanning lines is no command", "[see\n/gc retry](https://example.com)", none, false},
		{"emphasis spanning lines is no command", "*see\n/gc retry*", none, false},
		{"a setext heading is no command", "/gc retry\n---", none, false},
		{"an ATX heading is no command", "# /gc retry", none, false},
		{"a table cell is no command", "| a |\n|---|\n/gc retry", none, false},
		{"a div block hides a command", "<div>\n/gc retry\n</div>", none, false},
		{"an escaped slash is no command", "\\/gc retry", none, false},
		{"an entity is no command", "&#47;gc retry", none, false},
		{"a code span as the loop id is no loop id", "/gc retry `x`", Command{Verb: Help, BadLoopID: "`x`", Line: 1}, true},
		{"a command in a tight list item's text counts", "- a\n- b\n  /gc status", Command{Verb: Status, Line: 3}, true},
		{"a command in a quoted list item does not", "> - a\n>   /gc status", none, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Parse(tt.body)
			if ok != tt.ok {
				t.Fatalf("Parse(%q) ok = %v, want %v (got %+v)", tt.body, ok, tt.ok, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.body, diff)
			}
		})
	}
}

// quoteEvery prefixes every line of body with '>'.
func quoteEvery(body string) string {
	lines := splitLines(body)
	for i, l := range lines {
		lines[i] = ">" + l
	}
	return strings.Join(lines, "\n")
}

// fenceAll puts body in a fenced code block whose fence is longer than any
// run of backticks in it, so nothing in body can close it.
func fenceAll(body string) string {
	run, longest := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + body + "\n" + fence
}

// indentAll makes every line of body a line of an indented code block.
func indentAll(body string) string {
	lines := splitLines(body)
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"/gc retry", "/gc", "> /gc retry", "```\n/gc retry\n```", "~~~~\n~~~\n/gc abort\n~~~~",
		"text\n    /gc retry", "<!--\n/gc retry\n-->", "see <!-- x\n/gc help\n-->", "- ```\n  /gc retry",
		"> a\n/gc retry", "1. x\n\n   /gc status", "/gc retry \xff\xfe", "/gc\u00a0retry", "\t/gc retry",
		"<pre>\n/gc retry", "`` `<!--` ``\n/gc retry", "see `x\n/gc retry`", "[a\n/gc retry](u)", "| a |\n|-|\n/gc retry", "/gc retry " + strings.Repeat("a", 70),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, ok := Parse(body)
		if ok {
			if cmd.Line < 1 || cmd.Line > len(splitLines(body)) {
				t.Fatalf("Parse(%q) line %d out of range", body, cmd.Line)
			}
			if !knownVerb(cmd.Verb) {
				t.Fatalf("Parse(%q) verb %q unknown", body, cmd.Verb)
			}
			if cmd.LoopID != "" && cmd.Verb == Help && (cmd.Unknown != "" || cmd.BadLoopID != "") {
				t.Fatalf("Parse(%q) = %+v: a refused word left a loop id", body, cmd)
			}
			reply := Reply(Event{Author: "alice"}, cmd, Apply(nil, cmd, "alice", time.Time{}, 1), Who{{LoopID: "cov", Min: "admin"}})
			for _, bad := range []string{"<!--", "gcloop:state", "<script"} {
				if strings.Contains(reply, bad) {
					t.Fatalf("Reply to %q holds %q:\n%s", body, bad, reply)
				}
			}
		} else if cmd != (Command{}) {
			t.Fatalf("Parse(%q) = %+v without a command", body, cmd)
		}
		// A command found is never inside a quote or code: the same body
		// quoted, fenced or indented as code holds none.
		for what, wrapped := range map[string]string{"quoted": quoteEvery(body), "fenced": fenceAll(body), "indented": indentAll(body)} {
			if got, ok := Parse(wrapped); ok {
				t.Fatalf("Parse(%q) = %+v: a body %s as a whole yielded a command", wrapped, got, what)
			}
		}
	})
}

func BenchmarkParse(b *testing.B) {
	body := strings.Repeat("Some review text with `code` and <!-- a comment -->.\n\n> quoted /gc retry\n```\n/gc abort\n```\n", 500) + "/gc retry coverage\n"
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, ok := Parse(body); !ok {
			b.Fatal("no command")
		}
	}
}
