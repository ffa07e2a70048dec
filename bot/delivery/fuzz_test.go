package delivery_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/google/go-github/v62/github"
)

// noClients refuses every installation: the fuzz target stops where a
// delivery would reach GitHub.
type noClients struct{}

func (noClients) Client(context.Context, int64) (*github.Client, error) {
	return nil, errors.New("no client")
}

// FuzzHandle feeds any event name and payload to the handler: it returns
// an error or nil, never panics.
func FuzzHandle(f *testing.F) {
	f.Add("workflow_run", []byte(`{"action":"completed","installation":{"id":42},"repository":{"name":"r","owner":{"login":"o"}},"workflow_run":{"id":1}}`))
	f.Add("issue_comment", []byte(`{"action":"created","issue":{"number":1,"pull_request":{"url":"u"}},"comment":{"id":2,"body":"/gc retry"}}`))
	f.Add("pull_request", []byte(`{"action":"closed","number":1,"repository":{"name":"r","owner":{"login":"o"}}}`))
	f.Add("ping", []byte(`{"zen":"z"}`))
	f.Add("issue_comment", []byte(`{"action":"created","issue":null}`))
	f.Add("merge_group", []byte(`{"action":"checks_requested","installation":{"id":42},"merge_group":{"head_sha":"g","head_ref":"refs/heads/gh-readonly-queue/main/pr-1-b"}}`))
	f.Add("check_run", []byte(`{"action":"requested_action","check_run":{"name":"gcloop / review","app":{"slug":"app"},"pull_requests":[{"number":1}]},"requested_action":{"identifier":"retry"}}`))
	f.Add("check_run", []byte(`{"action":"rerequested","check_run":{"name":"gcloop / review","app":{"slug":"app"},"head_sha":"h"}}`))
	f.Add("check_suite", []byte(`{"action":"rerequested","check_suite":{"app":{"slug":"app"},"head_sha":"h","pull_requests":[]}}`))
	h := &delivery.Handler{Clients: noClients{}, Login: "app[bot]"}
	f.Fuzz(func(t *testing.T, name string, payload []byte) {
		_ = h.Handle(context.Background(), "d", name, payload)
	})
}
