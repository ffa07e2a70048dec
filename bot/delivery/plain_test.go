package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gcloop/gcloop/bot/delivery"
)

// TestPlainCommentsCostNoRequest sends 50 comments that run no command —
// plain text, a /gc inside a quote, a code block or a code span, a /gc
// written by a bot — and counts what they cost on the fake GitHub: at most
// one request in all (none, in fact). A comment with a command line after
// them does reach GitHub, so the count is not zero by accident.
func TestPlainCommentsCostNoRequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "review:\n  bot:\n    artifacts: [review-results]\n")
	bodies := []struct{ body, login, typ string }{
		{"LGTM, thanks!", "outsider", "User"},
		{"> /gc retry\nno, please do not", "outsider", "User"},
		{"```\n/gc abort\n```", "outsider", "User"},
		{"try `/gc retry` next time", "outsider", "User"},
		{"/gc retry", "renovate[bot]", "Bot"},
		{"<!-- /gc approve -->", "outsider", "User"},
	}
	from := len(w.gh.Requests())
	for i := range 50 {
		b := bodies[i%len(bodies)]
		p := payload(t, map[string]any{"action": "created", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
			"sender":  map[string]any{"login": b.login},
			"issue":   map[string]any{"number": w.pr, "pull_request": map[string]any{"url": "https://api.github.com/repos/octo/shop/pulls/1"}},
			"comment": map[string]any{"id": 9000 + i, "body": b.body, "user": map[string]any{"login": b.login, "type": b.typ}}})
		if err := w.h.Handle(context.Background(), fmt.Sprint("plain-", i), "issue_comment", p); !errors.Is(err, delivery.ErrIgnored) {
			t.Fatalf("comment %d (%q): Handle = %v, want ErrIgnored", i, b.body, err)
		}
	}
	if n := len(w.gh.Requests()) - from; n > 1 {
		t.Errorf("50 comments without a command cost %d requests, want at most 1", n)
	}

	id := w.gh.AddComment(owner, repo, w.pr, "outsider", "/gc status")
	p := payload(t, map[string]any{"action": "created", "installation": map[string]any{"id": 42}, "repository": w.repoJSON(),
		"sender":  map[string]any{"login": "outsider"},
		"issue":   map[string]any{"number": w.pr, "pull_request": map[string]any{"url": "https://api.github.com/repos/octo/shop/pulls/1"}},
		"comment": map[string]any{"id": id, "body": "/gc status", "user": map[string]any{"login": "outsider", "type": "User"}}})
	before := len(w.gh.Requests())
	_ = w.h.Handle(context.Background(), "command", "issue_comment", p)
	if len(w.gh.Requests()) == before {
		t.Error("a comment with a /gc line sent no request: the count above proves nothing")
	}
}
