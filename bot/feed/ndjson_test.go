package feed

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gcloop/gcloop/bot/event"
)

// pagedLog wraps a log and records how it was read: the largest page
// asked for; once armed with failAfter > 0, the reads after that many
// fail.
type pagedLog struct {
	Log
	mu        sync.Mutex
	calls     int // since arm
	maxLimit  int
	failAfter int
}

// arm starts counting reads: the failAfter+1st fails.
func (p *pagedLog) arm(failAfter int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls, p.failAfter = 0, failAfter
}

func (p *pagedLog) Since(ctx context.Context, after int64, limit int) ([]event.Event, error) {
	p.mu.Lock()
	p.calls++
	p.maxLimit = max(p.maxLimit, limit)
	fail := p.failAfter > 0 && p.calls > p.failAfter
	p.mu.Unlock()
	if fail {
		return nil, errors.New("database down")
	}
	return p.Log.Since(ctx, after, limit)
}

// ndjsonLines GETs url and reads its lines as events; the stream must end
// cleanly.
func ndjsonLines(t *testing.T, url string) (int, string, []event.Event) {
	t.Helper()
	code, ct, out, err := readNDJSON(t, url)
	if err != nil {
		t.Fatal(err)
	}
	return code, ct, out
}

// readNDJSON GETs url and reads its lines as events, until the end of the
// stream or the error that cut it.
func readNDJSON(t *testing.T, url string) (int, string, []event.Event, error) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []event.Event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var e event.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d is not one JSON event: %q (%v)", len(out)+1, sc.Text(), err)
		}
		out = append(out, e)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), out, sc.Err()
}

func TestAPIEventsNDJSON(t *testing.T) {
	t.Parallel()
	const n = 5*page + 123 // more pages than one read holds
	l := newMemLog()
	for i := range n {
		repo := "o/r"
		if i%3 == 0 {
			repo = "o/other"
		}
		l.add(event.Decision, repo, 1+i%4, "review", map[string]any{"round": 1 + i%3})
	}
	pl := &pagedLog{Log: l}
	_, srv := testHub(t, pl, Options{FilterFor: func(r *http.Request) func(context.Context, string) bool {
		if r.URL.Query().Get("who") == "" {
			return nil
		}
		return func(_ context.Context, repo string) bool { return repo == "o/other" }
	}})
	tests := []struct {
		query       string
		first, last int64
		count       int
	}{
		{"format=ndjson", 1, n, n},
		{"format=ndjson&since=0", 1, n, n},
		{"format=ndjson&since=2600", 2601, n, n - 2600},
		{"format=ndjson&since=100&limit=3", 101, 103, 3},
		{"format=ndjson&repo=o/other", 1, n, (n + 2) / 3},
		{"format=ndjson&who=x&since=1", 4, n, (n+2)/3 - 1},
		{"format=ndjson&since=" + "99999", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			code, ct, got := ndjsonLines(t, srv.URL+"/api/events?"+tt.query)
			if code != http.StatusOK || ct != "application/x-ndjson" {
				t.Fatalf("status %d, Content-Type %q; want 200 application/x-ndjson", code, ct)
			}
			if len(got) != tt.count {
				t.Fatalf("%d events, want %d", len(got), tt.count)
			}
			if tt.count == 0 {
				return
			}
			if got[0].ID != tt.first || got[len(got)-1].ID != tt.last {
				t.Errorf("events %d…%d, want %d…%d", got[0].ID, got[len(got)-1].ID, tt.first, tt.last)
			}
			for i := 1; i < len(got); i++ {
				if got[i].ID <= got[i-1].ID {
					t.Fatalf("event %d after %d", got[i].ID, got[i-1].ID)
				}
			}
			for _, e := range got {
				if e.Loop != "review" || e.Type != event.Decision || e.Time.IsZero() || len(e.Data) == 0 {
					t.Fatalf("event %+v: want the whole event", e)
				}
			}
		})
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.maxLimit > page {
		t.Errorf("the log was read %d events at a time, want at most a page (%d)", pl.maxLimit, page)
	}

	for _, q := range []string{"format=xml", "format=ndjson&format=json", "format=ndjson&since=-1"} {
		resp, err := http.Get(srv.URL + "/api/events?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("?%s: %d, want 400", q, resp.StatusCode)
		}
	}
}

// A store that fails before the first line is a 503; one that fails
// mid-stream cuts the stream off after the lines it gave, each whole: the
// client sees an error, not a clean end, and resumes with since.
func TestAPIEventsNDJSONStoreFailure(t *testing.T) {
	t.Parallel()
	l := newMemLog()
	for range 3 * page {
		l.add(event.Round, "o/r", 1, "review", nil)
	}
	for _, tt := range []struct {
		failAfter, code, lines int
	}{{failAfter: 1, code: http.StatusOK, lines: page}, {failAfter: 2, code: http.StatusOK, lines: 2 * page}} {
		pl := &pagedLog{Log: l}
		_, srv := testHub(t, pl, Options{})
		pl.arm(tt.failAfter)
		code, _, got, err := readNDJSON(t, srv.URL+"/api/events?format=ndjson")
		if code != tt.code || len(got) != tt.lines || err == nil {
			t.Errorf("failing after %d reads: %d with %d lines and error %v; want %d with %d, then an error", tt.failAfter, code, len(got), err, tt.code, tt.lines)
		}
	}
	down := newMemLog()
	_, srv := testHub(t, down, Options{})
	down.mu.Lock()
	down.sinceErr = errors.New("database down")
	down.mu.Unlock()
	resp, err := http.Get(srv.URL + "/api/events?format=ndjson")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(resp.Header.Get("Content-Type"), "ndjson") {
		t.Errorf("a log down from the start: %d %s, want 503", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
