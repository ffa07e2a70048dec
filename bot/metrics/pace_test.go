package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPacing(t *testing.T) {
	t.Parallel()
	m := New()
	p := m.Pacing()
	p.Wait(42, true, 52*time.Second)
	p.Wait(42, true, 8*time.Second)
	p.Wait(42, false, 500*time.Millisecond)
	p.Wait(7, false, 30*time.Second)
	p.Block(42, 30*time.Second)
	got := scrape(t, m)
	want := map[string]string{
		`gcloop_github_pace_wait_seconds_count{installation="42",request="write"}`:          "2",
		`gcloop_github_pace_wait_seconds_sum{installation="42",request="write"}`:            "60",
		`gcloop_github_pace_wait_seconds_bucket{installation="42",request="write",le="15"}`: "1",
		`gcloop_github_pace_wait_seconds_count{installation="42",request="read"}`:           "1",
		`gcloop_github_pace_wait_seconds_sum{installation="7",request="read"}`:              "30",
		`gcloop_github_blocked_seconds_count{installation="42"}`:                            "1",
		`gcloop_github_blocked_seconds_sum{installation="42"}`:                              "30",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q; want %q", k, got[k], v)
		}
	}
	if v, ok := got[`gcloop_github_blocked_seconds_count{installation="7"}`]; ok {
		t.Errorf("installation 7 has %s blocks; want no series", v)
	}
}

func TestConfigReads(t *testing.T) {
	t.Parallel()
	m := New()
	m.ConfigReads(func() (int64, int64) { return 7, 2 })
	got := scrape(t, m)
	for k, v := range map[string]string{
		`gcloop_github_config_reads_total{result="not_modified"}`: "7",
		`gcloop_github_config_reads_total{result="fetched"}`:      "2",
	} {
		if got[k] != v {
			t.Errorf("%s = %q; want %q", k, got[k], v)
		}
	}
}

// TestDocsListMetrics: docs/bot.md names every gcloop_* family the bot
// exports.
func TestDocsListMetrics(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "bot.md"))
	if err != nil {
		t.Fatal(err)
	}
	fams, err := populated().reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fams {
		if name := f.GetName(); strings.HasPrefix(name, "gcloop_") {
			n++
			if !strings.Contains(string(doc), "`"+name+"`") {
				t.Errorf("docs/bot.md does not name %s", name)
			}
		}
	}
	if n != 16 {
		t.Errorf("%d gcloop_* families, want the 16 the bot exports", n)
	}
}
