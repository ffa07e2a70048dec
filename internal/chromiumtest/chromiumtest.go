// Package chromiumtest starts headless Chromium for the browser tests of
// the dashboard: it finds the browser (skipping the test when there is
// none, except under CI=true, where a missing browser fails it) and opens
// a chromedp context on a fresh profile. A test kit: no product code
// imports it.
package chromiumtest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path finds the browser ($CHROMIUM, /usr/bin/chromium or
// /usr/bin/chromium-browser), or skips the test — except under CI=true,
// where a missing browser fails it.
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

// Context starts the browser at path, headless on a profile of its own,
// and returns a chromedp context that ends after a minute or at the
// test's cleanup, which also stops the browser.
func Context(t testing.TB, path string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 760),
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	return ctx
}
