package feed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/event"
)

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type %q", ct)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
	return resp.StatusCode
}

func TestAPIEvents(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	for i := range 1200 {
		repo := "o/r"
		if i%3 == 0 {
			repo = "o/other"
		}
		l.add(event.Round, repo, 1, "review", nil)
	}
	_, srv := testHub(t, l, Options{FilterFor: func(r *http.Request) func(context.Context, string) bool {
		if r.URL.Query().Get("who") == "" {
			return nil
		}
		return func(_ context.Context, repo string) bool { return repo == "o/other" }
	}})
	ids := func(from, to, step int64) []int64 {
		var out []int64
		for i := from; i <= to; i += step {
			out = append(out, i)
		}
		return out
	}
	tests := []struct {
		query string
		want  []int64
		code  int
	}{
		{"?since=0&limit=3", []int64{1, 2, 3}, 200},
		{"?since=1195", []int64{1196, 1197, 1198, 1199, 1200}, 200},
		{"?since=1200", []int64{}, 200},
		{"?limit=2", []int64{1199, 1200}, 200},
		{"", ids(1101, 1200, 1), 200},
		{"?since=0&limit=100000", ids(1, 1000, 1), 200},
		{"?since=0&repo=o/other&limit=3", []int64{1, 4, 7}, 200},
		{"?since=0&repo=O/Other&limit=2", []int64{1, 4}, 200},
		{"?limit=2&who=x", []int64{1195, 1198}, 200},
		{"?since=600&limit=700&who=x", ids(601, 1198, 3), 200},
		{"?since=-1", nil, 400},
		{"?limit=0", nil, 400},
		{"?limit=x", nil, 400},
		{"?repo=a/b/c", nil, 400},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			var got []event.Event
			code := getJSON(t, srv.URL+"/api/events"+tt.query, &got)
			if code != tt.code {
				t.Fatalf("status %d, want %d", code, tt.code)
			}
			if code != 200 {
				return
			}
			gotIDs := []int64{}
			for _, e := range got {
				gotIDs = append(gotIDs, e.ID)
			}
			if diff := cmp.Diff(tt.want, gotIDs); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAPILoopsFoldsTheLog(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	l.add(event.Delivery, "o/r", 0, "", nil)                                                                                                                                        // 1: no row
	l.add(event.Command, "o/r", 3, "review", map[string]any{"command": "retry"})                                                                                                    // 2
	l.add(event.Round, "o/r", 5, "review", map[string]any{"sha": "abc"})                                                                                                            // 3
	l.add(event.Decision, "o/r", 5, "review", map[string]any{"round": 1, "max_rounds": 3, "decision": "fix", "verdict": "2 high", "status": "complete", "title": "fix: round 1/3"}) // 4
	l.add(event.Comment, "o/r", 5, "review", nil)                                                                                                                                   // 5
	l.add(event.Round, "o/r", 5, "coverage", nil)                                                                                                                                   // 6
	l.add(event.Error, "o/r", 5, "coverage", map[string]any{"error": "artifact too large"})                                                                                         // 7
	l.add(event.Round, "x/y", 1, "audit", nil)                                                                                                                                      // 8
	l.add(event.Decision, "x/y", 1, "audit", map[string]any{"round": "two", "decision": "converge"})                                                                                // 9: a field of the wrong type
	_, srv := testHub(t, l, Options{})
	t4, t9 := base.Add(4*time.Second), base.Add(9*time.Second)
	all := []Loop{
		{Repo: "x/y", PR: 1, Loop: "audit", State: StateDecided, Decision: "converge", Time: t9, Decided: &t9, LastID: 9, LastType: event.Decision, Events: 2},
		{Repo: "o/r", PR: 5, Loop: "coverage", State: StateFailed, Error: "artifact too large", Time: base.Add(7 * time.Second), LastID: 7, LastType: event.Error, Events: 2},
		{Repo: "o/r", PR: 5, Loop: "review", State: StateDecided, Round: 1, MaxRounds: 3, Decision: "fix", Verdict: "2 high", Status: "complete", Title: "fix: round 1/3", Decided: &t4, Time: base.Add(5 * time.Second), LastID: 5, LastType: event.Comment, Events: 3},
		{Repo: "o/r", PR: 3, Loop: "review", State: StatePending, Time: base.Add(2 * time.Second), LastID: 2, LastType: event.Command, Events: 1},
	}
	tests := []struct {
		query string
		want  []Loop
	}{
		{"", all},
		{"?repo=x/y", all[:1]},
		{"?repo=nobody/here", []Loop{}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			var got []Loop
			if code := getJSON(t, srv.URL+"/api/loops"+tt.query, &got); code != 200 {
				t.Fatalf("status %d", code)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("loops (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAPIAnswers503WhenTheLogFails(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	_, srv := testHub(t, l, Options{})
	l.mu.Lock()
	l.sinceErr = errors.New("database down")
	l.mu.Unlock()
	for _, path := range []string{"/api/events", "/api/loops"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s: %d, want 503", path, resp.StatusCode)
		}
	}
	resp, err := http.Post(srv.URL+"/api/loops", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
}

func TestNewRefusesBadOrigins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		public  string
		allowed []string
		ok      bool
	}{
		{"", nil, true},
		{"https://bot.example.com", []string{"https://a.example", "b.example:8080", " "}, true},
		{"bot.example.com", nil, false},
		{"ftp://bot.example.com", nil, false},
		{"", []string{"https://a.example/path"}, false},
		{"", []string{"a.example/x"}, false},
		{"", []string{"https://user@a.example"}, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.public, tt.allowed), func(t *testing.T) {
			t.Parallel()
			_, err := New(newMemLog(), Options{PublicURL: tt.public, AllowedOrigins: tt.allowed})
			if (err == nil) != tt.ok {
				t.Errorf("New: %v, want ok=%v", err, tt.ok)
			}
		})
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Error("New(nil) succeeded")
	}
}
