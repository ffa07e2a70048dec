package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestEscapeInline(t *testing.T) {
	t.Parallel()
	const z = "\u200b"
	tests := []struct {
		name, in, want string
	}{
		{"plain text passes through", "nil pointer dereference in Foo", "nil pointer dereference in Foo"},
		{"HTML tags become entities", "<b>bold</b><script>x()</script>", "&lt;b&gt;bold&lt;/b&gt;&lt;script&gt;x()&lt;/script&gt;"},
		{"a spoofed state marker is defused", "<!-- gcloop:state review eyJ4IjoxfQ -->", "&lt;!-- gcloop&#58;state review eyJ4IjoxfQ --&gt;"},
		{"the marker keyword is defused in any case", "GCLOOP:State", "GCLOOP&#58;State"},
		{"a mention does not ping", "ask @octocat and @org/team", "ask @" + z + "octocat and @" + z + "org/team"},
		{"an e-mail address gets the same break", "user@example.com", "user@" + z + "example.com"},
		{"table pipes are escaped", "| a | b |", `\| a \| b \|`},
		{"triple backticks cannot open a code span", "```go\nrm -rf /\n```", "\\`\\`\\`go rm -rf / \\`\\`\\`"},
		{"a javascript link is defanged", "[x](javascript:alert(1))", `\[x\](javascript&#58;alert(1))`},
		{"an image is defanged", "![img](http://x)", `!\[img\](http://x)`},
		{"a data URL is defanged", "see DATA:text/html;base64,AAA", "see DATA&#58;text/html;base64,AAA"},
		{"a right-to-left override is removed", "evil\u202Etxt.exe", "eviltxt.exe"},
		{"NUL and other controls are removed", "a\x00b\x1bc\x7fd\u0085e", "abcde"},
		{"newlines and tabs become spaces", "line1\nline2\r\nline3\tend", "line1 line2 line3 end"},
		{"a leading heading mark is escaped", "# Heading", `\# Heading`},
		{"a leading list mark is escaped", "- item", `\- item`},
		{"a leading plus is escaped", "+ item", `\+ item`},
		{"a leading ordered-list mark is escaped", "12. item", `12\. item`},
		{"a leading ordered-list paren is escaped", "3) item", `3\) item`},
		{"a quote mark becomes an entity", "> quoted", "&gt; quoted"},
		{"leading spaces are trimmed", "    indented code", "indented code"},
		{"ampersands and entities stay literal", "a &amp; b &lt; c", "a &amp;amp; b &amp;lt; c"},
		{"issue references do not cross-link", "see #123 and o/r#45", "see #" + z + "123 and o/r#" + z + "45"},
		{"a leading issue reference does not cross-link", "#7 again", `\#` + z + "7 again"},
		{"emphasis marks are literal", "**b** _i_ ~~s~~ __init__.py", `\*\*b\*\* \_i\_ \~\~s\~\~ \_\_init\_\_.py`},
		{"math is literal", "$x^2$", `\$x^2\$`},
		{"backslashes are doubled", `path\to\|`, `path\\to\\\|`},
		{"invalid UTF-8 becomes the replacement character", "a\xffb", "a\uFFFDb"},
		{"emoji with joiners survive", "👩\u200d💻 ok", "👩\u200d💻 ok"},
		{"a zero-width space in the input is removed", "@\u200bfoo", "@" + z + "foo"},
		{"empty stays empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := EscapeInline(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("EscapeInline(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			escCheck(t, tt.in, got, false)
		})
	}
}

func TestEscapeInlineCapsLength(t *testing.T) {
	t.Parallel()
	got := EscapeInline(strings.Repeat("é", 1500))
	want := strings.Repeat("é", 999) + "…"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	// A cut never splits an entity: the cap counts input runes.
	got = EscapeInline(strings.Repeat("<", 1200))
	if want := strings.Repeat("&lt;", 999) + "…"; got != want {
		t.Errorf("entities were cut: got %d bytes ending %q", len(got), got[len(got)-10:])
	}
}

func TestEscapeBlock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"lines are kept", "line one\nline two", "line one\nline two"},
		{"every line is escaped as a block start", "intro\n# two\n    code\n> quote\n- item\n===", "intro\n\\# two\ncode\n&gt; quote\n\\- item\n\\==="},
		{"line breaks are normalized", "a\r\nb\rc\u2028d", "a\nb\nc\nd"},
		{"trailing space is trimmed", "a\n\n  ", "a"},
		{"a fence on its own line is literal", "```\ncode\n```", "\\`\\`\\`\ncode\n\\`\\`\\`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := EscapeBlock(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("EscapeBlock(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			escCheck(t, tt.in, got, true)
		})
	}
}

func TestEscURLPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"a plain path is kept", "pkg/a_b-c.go", "pkg/a_b-c.go", true},
		{"special characters are percent-encoded per segment", "dir with space/(x)#?.go", "dir%20with%20space/%28x%29%23%3F.go", true},
		{"non-ASCII is encoded as UTF-8 bytes", "é.go", "%C3%A9.go", true},
		{"a dot-dot segment is not linked", "../../other/repo", "", false},
		{"an absolute path is not linked", "/etc/passwd", "", false},
		{"an empty segment is not linked", "a//b", "", false},
		{"a backslash path is not linked", `a\b`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := escURLPath(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("escURLPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// escHostile are strings the escaping properties are checked against.
var escHostile = []string{
	"<img src=x onerror=alert(1)>", "<!-- gcloop:state review eyJ4IjoxfQ -->", "@octocat", "| a | b |",
	"```", "[x](javascript:alert(1))", "![img](http://x)", "\u202Egnp.exe", "\x00", "\\|", "\\\\|", "@\x00octocat",
	"gcloop\u202e:state", "<\u200b!--", "#1", "1. a", "\r\n# x", "@@@a", "`", "a\\", "jAvAsCrIpT:x",
}

func TestEscapeProperties(t *testing.T) {
	t.Parallel()
	for _, a := range escHostile {
		for _, b := range escHostile {
			in := a + b
			escCheck(t, in, EscapeInline(in), false)
			escCheck(t, in, EscapeBlock(in), true)
			escCheck(t, in, EscapeBlock(a+"\n"+b), true)
		}
	}
}

// escCheck asserts the properties every escaped text has.
func escCheck(t *testing.T, in, out string, block bool) {
	t.Helper()
	if err := escViolation(out, block); err != "" {
		t.Errorf("escaping %q gave %q: %s", in, out, err)
	}
}

// escViolation returns what is wrong with escaped text, or "".
func escViolation(out string, block bool) string {
	if !utf8.ValidString(out) {
		return "invalid UTF-8"
	}
	if strings.Contains(out, "<") {
		return "raw <"
	}
	lower := strings.ToLower(out)
	for _, bad := range []string{"gcloop:state", "javascript:", "data:", "vbscript:"} {
		if strings.Contains(lower, bad) {
			return "contains " + bad
		}
	}
	backslashes := 0
	for i, r := range out {
		switch {
		case r == '@' && i+1 < len(out) && escNameByte(out[i+1]):
			return "a mention that pings"
		case (r == '|' || r == '`') && backslashes%2 == 0:
			return "unescaped " + string(r)
		case r == '\n' && !block:
			return "a newline in inline text"
		case r < 0x20 && r != '\n', r == 0x7f, r == '\u202e', r == '\u2066', r == '\ufeff':
			return "a control character"
		}
		if r == '\\' {
			backslashes++
		} else {
			backslashes = 0
		}
	}
	return ""
}

func escNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

func FuzzEscapeInline(f *testing.F) {
	for _, s := range escHostile {
		f.Add(s)
	}
	f.Add(strings.Repeat("<@|", 600))
	f.Fuzz(func(t *testing.T, s string) {
		in := EscapeInline(s)
		if err := escViolation(in, false); err != "" {
			t.Fatalf("EscapeInline(%q) = %q: %s", s, in, err)
		}
		if n := utf8.RuneCountInString(in); n > 6*escInlineRunes {
			t.Fatalf("EscapeInline output has %d runes", n)
		}
		bl := EscapeBlock(s)
		if err := escViolation(bl, true); err != "" {
			t.Fatalf("EscapeBlock(%q) = %q: %s", s, bl, err)
		}
	})
}

func TestHTMLText(t *testing.T) {
	t.Parallel()
	const z = "\u200b"
	tests := []struct{ name, in, want string }{
		{"plain words stay, Markdown punctuation too", "assertion_mismatch *x*", "assertion_mismatch *x*"},
		{"tags become entities", `<b a="1">&</b>`, "&lt;b a=&quot;1&quot;&gt;&amp;&lt;/b&gt;"},
		{"a mention does not ping", "@octocat", "@" + z + "octocat"},
		{"a reference does not link", "#12", "#" + z + "12"},
		{"the marker keyword is defused", "<!-- gcloop:state x y -->", "&lt;!-- gcloop&#58;state x y --&gt;"},
		{"controls go, lines join", "a\x00b\nc\u202e", "ab c"},
		{"long text is cut", strings.Repeat("x", 100), strings.Repeat("x", 59) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := htmlText(tt.in, 60); got != tt.want {
				t.Errorf("htmlText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
