package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestBotHelpEndToEnd: a `/gc halp` by someone without write permission
// gets one reply from the App with the commands and who may run them
// (the repository's configuration sets no permission: write); the same
// comment delivered again — another delivery id and other bytes, so that
// neither the id nor the digest stops it at the door — finds the reply and
// posts no second one. A bot's `/gc help` gets nothing and costs no
// request.
func TestBotHelpEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := startBot(t, gcloop(t), "GCLOOP_WEBHOOK_SECRET="+secret, fmt.Sprintf("GCLOOP_APP_ID=%d", appID),
		"GCLOOP_APP_PRIVATE_KEY_FILE="+w.keyFile, "GITHUB_API_URL="+w.gh.URL())

	ev := w.comment("visitor", "thanks!\n\n/gc halp")
	cmdID := ev["comment"].(map[string]any)["id"]
	replies := func() []string {
		var out []string
		for _, r := range w.gh.Requests() {
			if r.Method == http.MethodPost && r.Path == "/repos/octo/shop/issues/1/comments" {
				var c struct{ Body string }
				if err := json.Unmarshal(r.Body, &c); err != nil {
					t.Fatal(err)
				}
				out = append(out, c.Body)
			}
		}
		return out
	}
	done := func(n int) func() bool {
		return func() bool {
			return strings.Contains(b.metrics(t), fmt.Sprintf(`gcloop_deliveries_total{event="issue_comment",result="done"} %d`, n))
		}
	}

	if status, body := b.deliver(t, "issue_comment", "help-1", ev); status != http.StatusAccepted {
		t.Fatalf("issue_comment delivery: %d %s", status, body)
	}
	waitFor(t, b, "the help's delivery to be done", done(1))
	got := replies()
	if len(got) != 1 {
		t.Fatalf("%d replies, want 1", len(got))
	}
	for _, want := range []string{
		"@visitor 😕 “halp” is not a command.",
		"- `/gc retry [loop]` —", "- `/gc approve [loop]` —", "- `/gc abort [loop]` —", "- `/gc status [loop]` —", "- `/gc help` —",
		"**Who may run them:** users with **write**, maintain or admin permission on the repository",
		fmt.Sprintf("<!-- gcloop:reply %v -->", cmdID),
	} {
		if !strings.Contains(got[0], want) {
			t.Errorf("the reply lacks %q:\n%s", want, got[0])
		}
	}
	if cs := w.gh.Comments(owner, repo, w.pr); cs[len(cs)-1].Author != slug+"[bot]" {
		t.Errorf("the reply is by %s, want the App", cs[len(cs)-1].Author)
	}

	before := len(w.gh.Requests())
	ev["redelivered"] = true // other bytes, same comment
	if status, body := b.deliver(t, "issue_comment", "help-2", ev); status != http.StatusAccepted {
		t.Fatalf("second delivery: %d %s", status, body)
	}
	waitFor(t, b, "the second delivery to be done", done(2))
	if n := len(replies()); n != 1 {
		t.Errorf("%d replies after the second delivery, want 1", n)
	}
	var list bool
	for _, r := range w.gh.Requests()[before:] {
		if r.Method == http.MethodGet && r.Path == "/repos/octo/shop/issues/1/comments" {
			list = true
			if !strings.Contains(r.RawQuery, "since=") {
				t.Errorf("the reply was looked for in every comment (%s), want those since the command", r.RawQuery)
			}
		}
		if r.Method == http.MethodPost && !strings.HasSuffix(r.Path, "/reactions") && !strings.HasSuffix(r.Path, "/access_tokens") {
			t.Errorf("the second delivery wrote %s %s", r.Method, r.Path)
		}
	}
	if !list {
		t.Error("the second delivery did not look for the reply")
	}

	before = len(w.gh.Requests())
	bot := w.comment("other-app[bot]", "/gc help")
	bot["comment"].(map[string]any)["user"].(map[string]any)["type"] = "Bot"
	if status, body := b.deliver(t, "issue_comment", "help-3", bot); status != http.StatusAccepted {
		t.Fatalf("bot's delivery: %d %s", status, body)
	}
	waitFor(t, b, "the bot's delivery to be ignored", func() bool {
		return strings.Contains(b.metrics(t), `gcloop_deliveries_total{event="issue_comment",result="ignored"} 1`)
	})
	if reqs := w.gh.Requests()[before:]; len(reqs) != 0 {
		t.Errorf("a bot's /gc help made %d requests, want none (first %s %s)", len(reqs), reqs[0].Method, reqs[0].Path)
	}
}
