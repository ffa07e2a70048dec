package report

import (
	"bytes"
	"flag"
	"github.com/chromedp/chromedp"
	"github.com/gcloop/gcloop/internal/testkit/browser"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

var screenshots = flag.Bool("screenshots", false, "render the golden reports as GitHub would and screenshot them into docs/report (needs chromium)")

// shots are the goldens shown in docs/report: one per loop kind, and the
// escalation.
var shots = []struct{ golden, png string }{
	{"review-fix", "review"},
	{"review-escalate", "review-escalate"},
	{"critique-revision", "critique"},
	{"audit-escalate", "audit"},
	{"validation-retry", "validation"},
	{"coverage-fix", "coverage"},
}

// githubCSS approximates GitHub's rendering of a comment: its fonts,
// headings, tables, code and folded details.
const githubCSS = `
body { margin: 0; background: #fff; }
.comment { box-sizing: border-box; max-width: 920px; margin: 16px; border: 1px solid #d0d7de; border-radius: 6px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 8px 16px; font: 14px -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; color: #57606a; border-radius: 6px 6px 0 0; }
.head b { color: #1f2328; }
.markdown-body { padding: 16px; font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Noto Color Emoji"; color: #1f2328; word-wrap: break-word; }
.markdown-body > *:first-child { margin-top: 0 !important; }
.markdown-body h2 { font-size: 1.5em; font-weight: 600; padding-bottom: .3em; border-bottom: 1px solid #d8dee4; margin: 24px 0 16px; line-height: 1.25; }
.markdown-body h3 { font-size: 1.25em; font-weight: 600; margin: 24px 0 16px; line-height: 1.25; }
.markdown-body p, .markdown-body ul, .markdown-body table, .markdown-body details, .markdown-body blockquote, .markdown-body pre { margin: 0 0 16px; }
.markdown-body a { color: #0969da; text-decoration: none; }
.markdown-body code { font: 85% ui-monospace, SFMono-Regular, "DejaVu Sans Mono", monospace; background: rgba(175,184,193,.2); padding: .2em .4em; border-radius: 6px; }
.markdown-body pre { background: #f6f8fa; padding: 16px; border-radius: 6px; overflow: auto; }
.markdown-body pre code { background: none; padding: 0; }
.markdown-body table { border-spacing: 0; border-collapse: collapse; display: block; width: max-content; max-width: 100%; overflow: auto; }
.markdown-body th { font-weight: 600; }
.markdown-body th, .markdown-body td { padding: 6px 13px; border: 1px solid #d0d7de; }
.markdown-body tr { background: #fff; border-top: 1px solid #d8dee4; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
.markdown-body summary { cursor: pointer; display: list-item; }
.markdown-body sub { font-size: 75%; color: #57606a; }
.markdown-body blockquote { padding: 0 1em; color: #57606a; border-left: .25em solid #d0d7de; }
.markdown-body ul { padding-left: 2em; }
`

// stateRE strips the hidden state marker, which GitHub does not show.
var stateRE = regexp.MustCompile(`(?m)^<!-- gcloop:state .* -->\n`)

// TestScreenshots renders the goldens into docs/report/<loop>.png with
// headless Chromium. It runs only with -screenshots, never in CI.
func TestScreenshots(t *testing.T) {
	if !*screenshots {
		t.Skip("run with -screenshots to render docs/report")
	}
	out := filepath.Join("..", "..", "docs", "report")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	for _, s := range shots {
		src, err := os.ReadFile(filepath.Join("testdata", s.golden+".md"))
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		if err := md.Convert(stateRE.ReplaceAll(src, nil), &body); err != nil {
			t.Fatalf("%s: %v", s.golden, err)
		}
		page := "<!doctype html><html><head><meta charset=\"utf-8\"><style>" + githubCSS + "</style></head><body>" +
			"<div class=\"comment\"><div class=\"head\"><b>github-actions</b> <span>bot</span> commented</div>" +
			"<div class=\"markdown-body\">" + body.String() + "</div></div></body></html>"
		dir := t.TempDir()
		htmlPath := filepath.Join(dir, s.png+".html")
		if err := os.WriteFile(htmlPath, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		png, err := filepath.Abs(filepath.Join(out, s.png+".png"))
		if err != nil {
			t.Fatal(err)
		}
		// The whole page, however long the report: a window-sized shot
		// cut the longer ones off.
		ctx := browser.New(t, 960, 800)
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+htmlPath)); err != nil {
			t.Fatalf("chromium for %s: %v", s.golden, err)
		}
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("chromium for %s: %v", s.golden, err)
		}
		if err := os.WriteFile(png, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", png)
	}
}
