// Package dash serves the bot's dashboard: one HTML page, embedded in the
// binary, with plain JavaScript and CSS and no build step. It shows the
// loops of /api/loops and the events of /ws as they happen, and reconnects
// with ?since=<the last event it showed> after a drop, backing off.
package dash

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/internal/lazyre"
)

//go:embed index.html
var page []byte

// Handler serves GET / (the page) and 404 for any other path. Mount it
// behind the access guard; the page reads api/loops, api/events and ws
// relative to its own address.
func Handler() http.Handler {
	csp := policy(page)
	etag := `"` + digest(page)[:16] + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(page)))
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(page)
	})
}

var (
	scriptRe = lazyre.New(`(?s)<script>(.*?)</script>`)
	styleRe  = lazyre.New(`(?s)<style>(.*?)</style>`)
)

// policy is the page's Content-Security-Policy: its own inline script and
// style, by hash, and nothing else; connections only to its own origin.
func policy(html []byte) string {
	var scripts, styles []string
	for _, m := range scriptRe().FindAllSubmatch(html, -1) {
		scripts = append(scripts, "'sha256-"+digest(m[1])+"'")
	}
	for _, m := range styleRe().FindAllSubmatch(html, -1) {
		styles = append(styles, "'sha256-"+digest(m[1])+"'")
	}
	return "default-src 'none'; script-src " + strings.Join(scripts, " ") +
		"; style-src " + strings.Join(styles, " ") +
		"; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return base64.StdEncoding.EncodeToString(sum[:])
}
