package report

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghfake"
)

func TestSwapWritesOnlyWhatWasRead(t *testing.T) {
	t.Parallel()
	const (
		get    = "GET"
		patch  = "PATCH"
		create = "POST"
	)
	tests := []struct {
		name      string
		existing  bool
		body      string
		now       string // the comment's body on GitHub; "" = deleted
		getCode   int    // a status injected on the read; 0 = none
		editCode  int    // a status injected on the edit; 0 = none
		wantReqs  []string
		conflict  bool
		wantError bool
	}{
		{name: "an identical body sends nothing", existing: true, body: "as read", now: "as read"},
		{name: "no comment yet is created without a read", body: "new", wantReqs: []string{create}},
		{name: "an unchanged comment is edited after the read", existing: true, body: "new", now: "as read",
			wantReqs: []string{get, patch}},
		{name: "a comment changed meanwhile is a conflict and is not edited", existing: true, body: "new", now: "/gc abort wrote this",
			wantReqs: []string{get}, conflict: true},
		{name: "a comment deleted meanwhile is a conflict, not a new comment", existing: true, body: "new",
			wantReqs: []string{get}, conflict: true},
		{name: "a comment deleted between the read and the edit is a conflict", existing: true, body: "new", now: "as read", editCode: 404,
			wantReqs: []string{get, patch}, conflict: true},
		{name: "a failing read is an error, no conflict, no edit", existing: true, body: "new", now: "as read", getCode: 500,
			wantReqs: []string{get}, wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, client := fakeGitHub(t)
			var existing *github.IssueComment
			id := int64(4242) // no comment has it: the comment was deleted
			if tt.now != "" {
				id = s.AddComment("o", "r", 7, bot, tt.now)
			}
			if tt.existing {
				existing = comment(id, bot, "as read", t0)
			}
			if tt.getCode != 0 {
				s.Fail(ghfake.FailRule{Pattern: "GET /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: tt.getCode})
			}
			if tt.editCode != 0 {
				s.Fail(ghfake.FailRule{Pattern: "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", Status: tt.editCode})
			}
			got, err := Swap(context.Background(), client.Issues, "o", "r", 7, existing, tt.body)
			after := s.Comments("o", "r", 7)
			switch {
			case tt.conflict != errors.Is(err, ErrConflict):
				t.Errorf("error %v, want a conflict: %v", err, tt.conflict)
			case tt.wantError && (err == nil || errors.Is(err, ErrConflict)):
				t.Errorf("error %v, want an error that is no conflict", err)
			case !tt.conflict && !tt.wantError && err != nil:
				t.Errorf("error %v", err)
			case !tt.conflict && !tt.wantError && (len(after) != 1 || after[0].ID != got.GetID() || after[0].Body != tt.body):
				t.Errorf("comment %d; comments on GitHub %+v, want one with the body %q", got.GetID(), after, tt.body)
			case (tt.conflict || tt.wantError) && tt.now != "" && (len(after) != 1 || after[0].Body != tt.now):
				t.Errorf("comments on GitHub %+v, want the one as it was", after)
			}
			want := make([]string, len(tt.wantReqs))
			for i, m := range tt.wantReqs {
				want[i] = fmt.Sprintf("%s /repos/o/r/issues/comments/%d", m, id)
				if m == create {
					want[i] = "POST /repos/o/r/issues/7/comments"
				}
			}
			if diff := cmp.Diff(want, s.RequestLines(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSwapRefusesWhatCannotBeSent(t *testing.T) {
	t.Parallel()
	s, client := fakeGitHub(t)
	id := s.AddComment("o", "r", 7, bot, "x")
	for _, body := range []string{"", string(make([]byte, CommentLimit+1))} {
		if _, err := Swap(context.Background(), client.Issues, "o", "r", 7, comment(id, bot, "x", t0), body); err == nil || errors.Is(err, ErrConflict) {
			t.Errorf("a body of %d bytes: %v, want a refusal", len(body), err)
		}
	}
	if _, err := Swap(context.Background(), client.Issues, "o", "r", 0, nil, "x"); err == nil {
		t.Error("PR #0: no error")
	}
	if n := len(s.RequestLines()); n != 0 {
		t.Errorf("%d requests for bodies that cannot be sent", n)
	}
}
