package action

import (
	"github.com/gcloop/gcloop/bot/round"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func contextWith(t *testing.T, event, payload string) (*Context, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(p, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": p, "GITHUB_REPOSITORY": "octo/shop",
		"GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "2", "GITHUB_SHA": "abc", "GITHUB_SERVER_URL": "https://ghe.example.com/",
	}
	return ReadContext(func(k string) string { return env[k] })
}

func TestReadContextPullRequest(t *testing.T) {
	t.Parallel()
	c, err := contextWith(t, "pull_request", `{"action":"synchronize","pull_request":{"number":12,"html_url":"https://x/pull/12",
		"head":{"sha":"h1","ref":"feature/x","repo":{"id":9}},"base":{"ref":"main","repo":{"id":7}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Pull
	if p == nil || p.Number != 12 || p.HeadSHA != "h1" || p.HeadRef != "feature/x" || p.BaseRef != "main" || !p.Fork() {
		t.Fatalf("pull %+v", p)
	}
	if c.Owner != "octo" || c.Repo != "shop" || c.RunID != 77 || c.RunAttempt != 2 {
		t.Errorf("context %+v", c)
	}
	if got, want := c.BlobURL("h1"), "https://ghe.example.com/octo/shop/blob/h1/"; got != want {
		t.Errorf("blob URL %q, want %q", got, want)
	}
}

func TestPullFork(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, payload string
		want          bool
	}{
		{"same repository", `{"pull_request":{"number":1,"head":{"repo":{"id":7}},"base":{"repo":{"id":7}}}}`, false},
		{"another repository", `{"pull_request":{"number":1,"head":{"repo":{"id":9}},"base":{"repo":{"id":7}}}}`, true},
		{"a deleted fork: head.repo null", `{"pull_request":{"number":1,"head":{"ref":"x","repo":null},"base":{"repo":{"id":7}}}}`, true},
		{"no head repository at all", `{"pull_request":{"number":1,"head":{"ref":"x"},"base":{"repo":{"id":7}}}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := contextWith(t, "pull_request", tt.payload)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Pull.Fork(); got != tt.want {
				t.Errorf("Fork() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadContextOtherEvents(t *testing.T) {
	t.Parallel()
	c, err := contextWith(t, "workflow_run", `{"workflow_run":{"id":5,"head_sha":"h2","head_repository":{"id":7},"pull_requests":[{"number":3,"head":{"sha":"h2"}}]}}`)
	if err != nil || c.Run == nil || c.Run.GetID() != 5 || len(c.Run.PullRequests) != 1 {
		t.Fatalf("workflow_run: %+v, %v", c, err)
	}
	c, err = contextWith(t, "workflow_dispatch", `{"inputs":{"pr":"#31"}}`)
	if err != nil || c.DispatchPR != 31 {
		t.Fatalf("workflow_dispatch: %+v, %v", c, err)
	}
	if _, err := contextWith(t, "workflow_dispatch", `{"inputs":{"pr":"x"}}`); err == nil {
		t.Error("a bad pr input was accepted")
	}
	c, err = contextWith(t, "issue_comment", `{"action":"created","comment":{"id":8,"body":"/gc retry"},"issue":{"number":4,"pull_request":{}}}`)
	if err != nil || c.Comment == nil || c.Comment.GetComment().GetBody() != "/gc retry" {
		t.Fatalf("issue_comment: %+v, %v", c, err)
	}
	if _, err := contextWith(t, "pull_request", `{"pull_request":`); err == nil {
		t.Error("a truncated payload was accepted")
	}
	c, err = contextWith(t, "merge_group", `{"action":"checks_requested","merge_group":{"head_sha":"g1","head_ref":"refs/heads/gh-readonly-queue/main/pr-4-b1","base_ref":"refs/heads/main"}}`)
	if err != nil || c.MergeGroup == nil || c.MergeGroup.GetHeadSHA() != "g1" {
		t.Fatalf("merge_group: %+v, %v", c, err)
	}
	for _, payload := range []string{`{"action":"destroyed","merge_group":{"head_sha":"g1"}}`, `{"action":"checks_requested","merge_group":{}}`} {
		if c, err = contextWith(t, "merge_group", payload); err != nil || c.MergeGroup != nil {
			t.Errorf("merge_group %s: %+v, %v; want no group to check", payload, c.MergeGroup, err)
		}
	}
}

func FuzzReadEvent(f *testing.F) {
	f.Add("pull_request", `{"pull_request":{"number":1,"head":{"sha":"a","repo":{"id":2}},"base":{"repo":{"id":2}}}}`)
	f.Add("workflow_run", `{"workflow_run":{"id":5,"pull_requests":[{"number":3}]}}`)
	f.Add("workflow_dispatch", `{"inputs":{"pr":"#4"}}`)
	f.Add("workflow_dispatch", `{"inputs":{"pr":4e30}}`)
	f.Add("issue_comment", `{"comment":{"body":"/gc retry"},"issue":{"pull_request":{}}}`)
	f.Add("merge_group", `{"action":"checks_requested","merge_group":{"head_sha":"g","head_ref":"refs/heads/gh-readonly-queue/main/pr-4-b"}}`)
	f.Fuzz(func(t *testing.T, event, payload string) {
		c := &Context{Event: round.Event{Name: event}}
		if err := c.readEvent(strings.NewReader(payload)); err != nil {
			return
		}
		if c.DispatchPR < 0 {
			t.Fatalf("negative pr %d from %q", c.DispatchPR, payload)
		}
		if c.MergeGroup != nil && c.MergeGroup.GetHeadSHA() == "" {
			t.Fatalf("a merge group without a commit from %q", payload)
		}
	})
}
