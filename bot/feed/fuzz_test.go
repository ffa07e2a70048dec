package feed

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/gcloop/gcloop/bot/event"
)

// FuzzQuery: any query string of /ws and /api/* is parsed or refused,
// never a panic, and what is accepted is within bounds.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"", "since=0", "since=18446744073709551616", "limit=5&repo=o/r", "repo=%2e%2e/x", "since=1&since=2", "limit=-3", "format=ndjson&since=3", "format=NDJSON", "format=json&format=ndjson"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := parseQuery(v)
		if err != nil {
			return
		}
		if q.since < -1 || q.limit < 1 || q.limit > MaxLimit || (q.repo != "" && !validRepo(q.repo)) {
			t.Fatalf("accepted out of bounds: %+v", q)
		}
	})
}

// FuzzOrigin: any Origin header and allow-list entry is decided without a
// panic, and a foreign origin is never allowed by an empty list.
func FuzzOrigin(f *testing.F) {
	f.Add("https://evil.example", "bot.example:8080", "https://ok.example")
	f.Add("null", "127.0.0.1:1", "")
	f.Add("http://[::1", "[::1]:80", "https://[::1]:80")
	f.Fuzz(func(t *testing.T, o, host, allowed string) {
		list, err := parseOrigins("", []string{allowed})
		if err != nil {
			return
		}
		_ = originAllowed(o, host, list)
		if o != "" && originAllowed(o, "", nil) {
			u, err := url.Parse(o)
			if err == nil && u.Host != "" {
				t.Fatalf("origin %q allowed for an empty host and list", o)
			}
		}
	})
}

// FuzzLoops: events with any data fold into rows without a panic, and the
// free text of a row stays capped.
func FuzzLoops(f *testing.F) {
	f.Add("decision", `{"round":1,"decision":"fix","title":"x"}`, 3)
	f.Add("error", `{"error":12}`, 1)
	f.Add("decision", `[1,2`, 0)
	f.Fuzz(func(t *testing.T, typ, data string, pr int) {
		fo := newFolder()
		fo.add(event.Event{ID: 1, Type: event.Round, Repo: "o/r", PR: pr, Loop: "l"})
		fo.add(event.Event{ID: 2, Type: typ, Repo: "o/r", PR: pr, Loop: "l", Data: json.RawMessage(data)})
		for _, r := range fo.loops() {
			for _, s := range []string{r.Decision, r.Verdict, r.Status, r.Title, r.Error} {
				if len(s) > maxText+len("…") {
					t.Fatalf("text of %d bytes", len(s))
				}
			}
		}
	})
}
