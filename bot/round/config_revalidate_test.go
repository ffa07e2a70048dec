package round_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/round"
)

// TestLiveConfigIsRevalidated: deliveries each make their own Live, over
// clients that share one ContentCache. The second delivery's read of the
// configuration is a 304 (no quota) and yields the very file the first
// parsed; a change is read and parsed again.
func TestLiveConfigIsRevalidated(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  max_rounds: 3\n"))
	cache := ghclient.NewContentCache(0)
	live := func() *round.Live {
		c, err := ghclient.New(ghclient.Options{Token: token, BaseURL: w.gh.URL(), Contents: cache, Installation: 42})
		if err != nil {
			t.Fatal(err)
		}
		return &round.Live{Client: c, Owner: owner, Repo: repo, Token: token}
	}
	ctx := context.Background()
	status := func() (int, string) {
		reqs := w.gh.Requests()
		r := reqs[len(reqs)-1]
		return r.Status, r.Header.Get("If-None-Match")
	}

	first, err := live().Config(ctx, "", ".github/gcloop.yml")
	if err != nil || first.Section("review") == nil {
		t.Fatalf("first read: %v, %v", first, err)
	}
	second, err := live().Config(ctx, "", ".github/gcloop.yml")
	if err != nil {
		t.Fatal(err)
	}
	if st, inm := status(); st != http.StatusNotModified || inm == "" {
		t.Errorf("second read: the fake answered %d to If-None-Match %q; want 304", st, inm)
	}
	if second != first {
		t.Error("second read parsed the file again; want the file the first parsed")
	}

	w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte("review:\n  max_rounds: 5\n"))
	third, err := live().Config(ctx, "", ".github/gcloop.yml")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := status(); st != http.StatusOK || third == first || *third.Section("review").MaxRounds != 5 {
		t.Errorf("after a change: status %d, max_rounds %v; want 200 and the new file", st, third.Section("review").MaxRounds)
	}
	if got, err := live().Config(ctx, "", ".github/other.yml"); err != nil || got != nil {
		t.Errorf("a missing file: %v, %v; want nil, nil", got, err)
	}
}

// BenchmarkLiveConfig reads a configuration file from the fake GitHub: a
// client without a cache gets a 200 and parses the file each time; one with
// a cache gets a 304 and the file parsed before.
func BenchmarkLiveConfig(b *testing.B) {
	gh := ghfake.New(b)
	gh.AddRepo(owner, repo, 100, "main")
	gh.AddToken(token, bot, true)
	gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte(benchConfig))
	for _, cache := range []*ghclient.ContentCache{nil, ghclient.NewContentCache(0)} {
		name := "fresh"
		if cache != nil {
			name = "revalidated"
		}
		b.Run(name, func(b *testing.B) {
			c, err := ghclient.New(ghclient.Options{Token: token, BaseURL: gh.URL(), Contents: cache})
			if err != nil {
				b.Fatal(err)
			}
			l := &round.Live{Client: c, Owner: owner, Repo: repo, Token: token}
			ctx := context.Background()
			b.ReportAllocs()
			for range b.N {
				if _, err := l.Config(ctx, "", ".github/gcloop.yml"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchConfig is a configuration of every loop, as a repository with
// several loops writes it.
const benchConfig = `review:
  max_rounds: 3
  threshold: 8
  labels: [gcloop, review]
  bot:
    artifacts: [review-results]
audit:
  max_rounds: 2
  audit:
    partial: revise
coverage:
  layers: {L1: 80, L2: 60}
  commit: true
  test_patterns: ["**/*_test.go"]
  forbidden_markers: ["t.Skip("]
  bot:
    artifacts: [coverage]
`
