// Package browser starts headless Chromium for the tests that look at what
// gcloop shows a person: the dashboard, the report screenshots. It is a test
// kit: no product code imports it.
package browser

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path finds the browser: $CHROMIUM, else Debian's chromium. A missing
// browser skips the test — except under CI=true, where it fails it.
func Path(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found at /usr/bin/chromium (CI=true: the browser test must run; install Debian's chromium)")
	}
	t.Skip("chromium not found at /usr/bin/chromium: install Debian's chromium to run the browser test")
	return ""
}

// New starts headless Chromium with a window of width × height and returns
// a chromedp context on a new tab, ended with t (or after a minute). The
// flags keep it off the network: this machine reaches none.
func New(t testing.TB, width, height int) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(width, height),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	return ctx
}
