package appauth

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// recordingPacer records what the clients ask of the pacer and never
// holds anything back.
type recordingPacer struct {
	mu    sync.Mutex
	calls []string
}

func (p *recordingPacer) record(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, fmt.Sprintf(format, args...))
}

func (p *recordingPacer) Reserve(_ context.Context, installation int64, _ time.Duration) (time.Duration, bool, error) {
	p.record("reserve %d", installation)
	return 0, true, nil
}

func (p *recordingPacer) Blocked(_ context.Context, installation int64) (time.Duration, error) {
	p.record("blocked %d", installation)
	return 0, nil
}

func (p *recordingPacer) Block(_ context.Context, installation int64, d time.Duration) error {
	p.record("block %d %s", installation, d)
	return nil
}

// TestEachInstallationSpendsItsOwnBudget: an installation's client asks
// the pacer with the installation's id; the App's own requests (the
// installation token's minting) spend no installation's budget; a
// token's client spends installation 0's.
func TestEachInstallationSpendsItsOwnBudget(t *testing.T) {
	t.Parallel()
	gh := ghfake.New(t)
	clk := newClock()
	gh.SetClock(clk.Now)
	gh.AddApp(ghfake.AppSpec{ID: appID, Slug: appSlug, Key: &ghfake.AppKeys()[0].PublicKey})
	gh.AddInstallation(appID, instID, "octo-org")
	gh.AddRepo("octo-org", "shop", 100, "main")
	gh.AddToken("ghp_singlerepotoken", "dev", true)
	p := &recordingPacer{}
	o := testGitHub(gh)
	o.Pacer = p
	app, err := New(Options{AppID: appID, Key: ghfake.AppKeys()[0], Now: clk.Now, GitHub: o})
	if err != nil {
		t.Fatal(err)
	}
	single, err := New(Options{Token: "ghp_singlerepotoken", Now: clk.Now, GitHub: o})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []*Clients{app, single} {
		cl, err := c.Client(ctx, instID)
		if err != nil {
			t.Fatal(err)
		}
		_, _, _ = cl.Issues.CreateComment(ctx, "octo-org", "shop", 1, &github.IssueComment{Body: github.String("hi")})
		_, _, _ = cl.Issues.ListComments(ctx, "octo-org", "shop", 1, nil)
	}
	if _, err := app.Identity(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"reserve 77", "blocked 77", "reserve 0", "blocked 0"}
	if diff := cmp.Diff(want, p.calls); diff != "" {
		t.Errorf("pacer calls (-want +got):\n%s", diff)
	}
}
