package demo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gcloop/gcloop/internal/testkit/browser"
)

// TestDashboardShowsTheDayLive opens the demo's dashboard in headless
// Chromium before the day starts, then plays the day: the loops table,
// empty at first, gains a row for each of the three loops, and their
// decisions arrive live — the first pull request's review converges, the
// second's escalates before it converges after /gc retry.
func TestDashboardShowsTheDayLive(t *testing.T) {
	browser.Path(t) // skips, or under CI=true fails, before the test goes parallel
	t.Parallel()
	begin := make(chan struct{})
	d := startDemo(t, begin)
	ctx := browser.New(t, 1280, 760)

	err := chromedp.Do(ctx,
		chromedp.Navigate(d.url+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#loops-empty`)),
	)
	if err != nil {
		t.Fatalf("loading the dashboard at %s/: %v", d.url, err)
	}
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#loops tr').length`))
	if err != nil {
		t.Fatal(err)
	}
	if before != 0 {
		t.Fatalf("the loops table has %d rows before the day starts, want 0", before)
	}

	close(begin)
	row := func(key string) string { return fmt.Sprintf(`#loops tr[data-key="%s"]`, key) }
	// The rows appear and end as the day does; the escalation on the way
	// stays in the list of events.
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(row("acme/shop#1#review"))),
		chromedp.WaitVisible(chromedp.CSS(row("acme/api#1#validation"))),
		chromedp.WaitVisible(chromedp.CSS(row("acme/shop#1#review")+` .badge.converge`)),
		chromedp.WaitVisible(chromedp.CSS(`#events li[data-type="decision"] .badge.fix`)),
		chromedp.WaitVisible(chromedp.CSS(`#events li[data-type="decision"] .badge.escalate`)),
		chromedp.WaitVisible(chromedp.CSS(`#events li[data-type="command"]`)),
		chromedp.WaitVisible(chromedp.CSS(row("acme/shop#2#review")+` .badge.converge`)),
	)
	if err != nil {
		t.Fatalf("waiting for the day's rounds on the dashboard: %v\nday:\n%s", err, d.out)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#loops`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"acme/shop #1", "acme/shop #2", "acme/api #1", "CONVERGE — round 3 of 3 (review)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the loops table does not show %q:\n%s", want, text)
		}
	}
	if err := <-d.script; err != nil {
		t.Errorf("the day: %v", err)
	}
}
