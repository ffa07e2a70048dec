package imagetest

import (
	"regexp"
	"strings"
	"testing"
)

// paragraphs splits a Markdown page into its blocks (runs of lines between
// blank lines), each with the line it starts on.
func paragraphs(doc string) (blocks []string, starts []int) {
	var cur []string
	start := 0
	for i, line := range strings.Split(doc, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				blocks, starts = append(blocks, strings.Join(cur, "\n")), append(starts, start)
			}
			cur = nil
			continue
		}
		if len(cur) == 0 {
			start = i + 1
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		blocks, starts = append(blocks, strings.Join(cur, "\n")), append(starts, start)
	}
	return blocks, starts
}

// passRateUnit is how a paragraph says that pass_rate is a fraction.
var passRateUnit = regexp.MustCompile(`(?i)fraction|0–1|0-1`)

// TestDocsSayPassRateIsAFractionBesideCoverage: coverage is a percentage and
// pass_rate a fraction; wherever a page's paragraph, table row or example
// names both, the reader is told which is which in that paragraph or a
// neighbour (a JSON example's introduction two blocks up, past its command).
func TestDocsSayPassRateIsAFractionBesideCoverage(t *testing.T) {
	t.Parallel()
	for _, name := range docFiles(t) {
		blocks, starts := paragraphs(string(readRoot(t, name)))
		for i, b := range blocks {
			if !strings.Contains(b, "pass_rate") || !strings.Contains(b, "coverage") {
				continue
			}
			said := passRateUnit.MatchString(b)
			for _, near := range []int{i - 2, i - 1, i + 1} {
				if near >= 0 && near < len(blocks) {
					said = said || passRateUnit.MatchString(blocks[near])
				}
			}
			if !said {
				t.Errorf("%s:%d names pass_rate beside coverage without saying that pass_rate is a fraction (0–1) and coverage a percentage", name, starts[i])
			}
		}
	}
}

// falseClaims are things the docs once said that were not true, each with
// what is true instead; they must not come back.
var falseClaims = []struct {
	re   *regexp.Regexp
	true string
}{
	{regexp.MustCompile(`(?i)bot,?\s+once\s+built|bot\s+will\s+be\s+built|bot\s+is\s+not\s+built\s+yet`),
		"the bot is built: gcloop bot in any go install build"},
	{regexp.MustCompile("GCLOOP_TOKEN=[^\n]*#[^\n]*\\bchecks\\b"),
		"a personal token cannot write check runs (only an App, GITHUB_TOKEN among them, can); the bot writes a commit status instead"},
	{regexp.MustCompile("(?i)GCLOOP_REPOSITORY[^\n|]*\\b(required|must be set)"),
		"GCLOOP_REPOSITORY is optional next to a token: without it the token serves any repository"},
	{regexp.MustCompile(`(?i)release binar[^.]*\bhas? the bot|bot is in the release`),
		"the release binaries are built with -tags nobot, without the bot"},
}

func TestDocsMakeNoClaimKnownToBeFalse(t *testing.T) {
	t.Parallel()
	for _, name := range docFiles(t) {
		doc := string(readRoot(t, name))
		for _, c := range falseClaims {
			for _, loc := range c.re.FindAllStringIndex(doc, -1) {
				line := strings.Count(doc[:loc[0]], "\n") + 1
				t.Errorf("%s:%d says %q; not so: %s", name, line, doc[loc[0]:loc[1]], c.true)
			}
		}
	}
}

func TestFalseClaimsCatchWhatTheDocsOnceSaid(t *testing.T) {
	t.Parallel()
	once := []string{
		"the bot,\nonce built, will receive them as webhooks",
		"export GCLOOP_TOKEN=github_pat_…          # contents, pull requests, issues, checks, statuses, actions: write",
		"GCLOOP_REPOSITORY is required with a token",
	}
	for _, text := range once {
		caught := false
		for _, c := range falseClaims {
			caught = caught || c.re.MatchString(text)
		}
		if !caught {
			t.Errorf("no false claim matches %q", text)
		}
	}
	blocks, _ := paragraphs("a\n\n```json\n{\"coverage\":null,\"pass_rate\":null}\n```\n\nb")
	if len(blocks) != 3 || passRateUnit.MatchString(blocks[1]) {
		t.Errorf("paragraphs = %q", blocks)
	}
}
