package report

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/internal/testkit/ghtest"
)

func TestSwapWritesOnlyWhatWasRead(t *testing.T) {
	t.Parallel()
	const (
		get    = "GET /repos/o/r/issues/comments/42"
		patch  = "PATCH /repos/o/r/issues/comments/42"
		create = "POST /repos/o/r/issues/7/comments"
	)
	read := comment(42, bot, "as read", t0)
	tests := []struct {
		name      string
		existing  bool
		body      string
		now       string // the comment's body on GitHub; "" = deleted
		getCode   int    // 0 = 200
		editCode  int    // 0 = 200
		wantReqs  []string
		wantID    int64
		conflict  bool
		wantError bool
	}{
		{name: "an identical body sends nothing", existing: true, body: "as read", now: "as read", wantID: 42},
		{name: "no comment yet is created without a read", body: "new", wantReqs: []string{create}, wantID: 77},
		{name: "an unchanged comment is edited after the read", existing: true, body: "new", now: "as read",
			wantReqs: []string{get, patch}, wantID: 42},
		{name: "a comment changed meanwhile is a conflict and is not edited", existing: true, body: "new", now: "/gc abort wrote this",
			wantReqs: []string{get}, conflict: true},
		{name: "a comment deleted meanwhile is a conflict, not a new comment", existing: true, body: "new", getCode: 404,
			wantReqs: []string{get}, conflict: true},
		{name: "a comment deleted between the read and the edit is a conflict", existing: true, body: "new", now: "as read", editCode: 404,
			wantReqs: []string{get, patch}, conflict: true},
		{name: "a failing read is an error, no conflict, no edit", existing: true, body: "new", getCode: 500,
			wantReqs: []string{get}, wantError: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := ghtest.New(t)
			s.Mux.HandleFunc("/repos/o/r/issues/comments/42", func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.Method == "GET" && tt.getCode == 404:
					ghtest.NotFound(w)
				case r.Method == "GET" && tt.getCode != 0:
					w.WriteHeader(tt.getCode)
				case r.Method == "GET":
					ghtest.WriteJSON(w, 200, comment(42, bot, tt.now, t0))
				case tt.editCode == 404:
					ghtest.NotFound(w)
				default:
					ghtest.TestMethod(t, r, "PATCH")
					ghtest.WriteJSON(w, 200, comment(42, bot, tt.body, t0))
				}
			})
			s.Mux.HandleFunc("/repos/o/r/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
				ghtest.TestMethod(t, r, "POST")
				ghtest.WriteJSON(w, 201, comment(77, bot, tt.body, t0))
			})
			existing := read
			if !tt.existing {
				existing = nil
			}
			got, err := Swap(context.Background(), s.Client.Issues, "o", "r", 7, existing, tt.body)
			switch {
			case tt.conflict != errors.Is(err, ErrConflict):
				t.Errorf("error %v, want a conflict: %v", err, tt.conflict)
			case tt.wantError && (err == nil || errors.Is(err, ErrConflict)):
				t.Errorf("error %v, want an error that is no conflict", err)
			case !tt.conflict && !tt.wantError && (err != nil || got.GetID() != tt.wantID):
				t.Errorf("comment %d, %v; want %d", got.GetID(), err, tt.wantID)
			}
			if diff := cmp.Diff(tt.wantReqs, s.Requests()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSwapRefusesWhatCannotBeSent(t *testing.T) {
	t.Parallel()
	s := ghtest.New(t)
	for _, body := range []string{"", string(make([]byte, CommentLimit+1))} {
		if _, err := Swap(context.Background(), s.Client.Issues, "o", "r", 7, comment(42, bot, "x", t0), body); err == nil || errors.Is(err, ErrConflict) {
			t.Errorf("a body of %d bytes: %v, want a refusal", len(body), err)
		}
	}
	if _, err := Swap(context.Background(), s.Client.Issues, "o", "r", 0, nil, "x"); err == nil {
		t.Error("PR #0: no error")
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests for bodies that cannot be sent", n)
	}
}
