package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
)

// bury adds a delivery of key and makes it dead with reason.
func bury(t *testing.T, st store.Store, id, key, reason string) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.Add(ctx, store.Delivery{ID: id, Event: "star", Payload: []byte(`{"action":"created"}`), Key: key}); err != nil {
		t.Fatal(err)
	}
	d, ok, err := st.Claim(ctx, "test", time.Minute)
	if err != nil || !ok || d.ID != id {
		t.Fatalf("Claim = %s, %v, %v; want %s", d.ID, ok, err, id)
	}
	if err := st.Bury(ctx, id, "test", reason); err != nil {
		t.Fatal(err)
	}
}

func call(t *testing.T, method, url, bearer string, operator bool) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if operator {
		req.Header.Set(OperatorHeader, "1")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestDeadDeliveriesAreListedCountedAndRedelivered(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef-dashboard"
	s := tokenServer(t, ghfake.New(t), "GCLOOP_DASHBOARD_TOKEN", token)
	bury(t, s.store, "d-1", "octo/shop#7", "validation failed: body too long")
	base, stop := serve(t, s)
	defer stop()
	steps := []struct {
		name, method, path, bearer string
		operator                   bool
		status                     int
		body                       string
	}{
		{"the list is behind the guard", "GET", "/api/deliveries?state=dead", "", false, 401, ""},
		{"the list", "GET", "/api/deliveries?state=dead", token, false, 200, `"total":1,"deliveries":[{"id":"d-1","event":"star","key":"octo/shop#7","repo":"octo/shop","pr":7,`},
		{"its error", "GET", "/api/deliveries?state=dead&limit=1", token, false, 200, `"attempts":1,"error":"validation failed: body too long"}`},
		{"only the dead are listed", "GET", "/api/deliveries?state=pending", token, false, 400, "only state=dead"},
		{"a limit out of range", "GET", "/api/deliveries?state=dead&limit=5000", token, false, 400, "from 1 to 1000"},
		{"the gauge", "GET", "/metrics", "", false, 200, "\ngcloop_deliveries_dead 1\n"},
		{"a redelivery is behind the guard", "POST", "/api/deliveries/d-1/redeliver", "", true, 401, ""},
		{"a redelivery needs the operator header", "POST", "/api/deliveries/d-1/redeliver", token, false, 403, OperatorHeader},
		{"an unknown id", "POST", "/api/deliveries/nope/redeliver", token, true, 404, `no delivery \"nope\"`},
		{"a redelivery", "POST", "/api/deliveries/d-1/redeliver", token, true, 200, `{"redelivered":"d-1"}`},
		{"twice", "POST", "/api/deliveries/d-1/redeliver", token, true, 409, "is not dead"},
		{"the list is empty", "GET", "/api/deliveries?state=dead", token, false, 200, `{"state":"dead","total":0,"deliveries":[]}`},
		{"the gauge is 0", "GET", "/metrics", "", false, 200, "\ngcloop_deliveries_dead 0\n"},
	}
	for i, st := range steps {
		status, body := call(t, st.method, base+st.path, st.bearer, st.operator)
		if status != st.status || !strings.Contains(body, st.body) {
			t.Fatalf("step %d (%s): %s %s = %d %.300q; want %d with %q", i+1, st.name, st.method, st.path, status, body, st.status, st.body)
		}
	}
}

func TestLoopbackAccessMayRedeliver(t *testing.T) {
	t.Parallel()
	s := tokenServer(t, ghfake.New(t))
	bury(t, s.store, "d-1", "", "panic")
	base, stop := serve(t, s)
	defer stop()
	if status, body := call(t, "POST", base+"/api/deliveries/d-1/redeliver", "", true); status != 200 {
		t.Fatalf("POST from loopback = %d %s; want 200", status, body)
	}
}

func TestAGitHubLoginSeesOnlyItsRepositoriesDeadAndMayNotRedeliver(t *testing.T) {
	t.Parallel()
	st := store.NewMemory(store.Options{})
	defer st.Close()
	bury(t, st, "mine", "octo/shop#1", "x")
	bury(t, st, "theirs", "other/repo@abc", "y")
	bury(t, st, "nobodys", "", "z")
	a := &deliveriesAPI{store: st, log: quiet(), filter: func(*http.Request) func(context.Context, string) bool {
		return func(_ context.Context, repo string) bool { return repo == "octo/shop" }
	}}
	rec := httptest.NewRecorder()
	a.list(rec, httptest.NewRequest("GET", "/api/deliveries?state=dead", nil))
	var got struct {
		Total      int `json:"total"`
		Deliveries []struct {
			ID string `json:"id"`
		} `json:"deliveries"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Total != 1 || len(got.Deliveries) != 1 || got.Deliveries[0].ID != "mine" {
		t.Errorf("a login's list = %s; want only its repository's one", rec.Body)
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/api/deliveries/mine/redeliver", nil)
	req.Header.Set(OperatorHeader, "1")
	req.SetPathValue("id", "mine")
	a.redeliver(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a login's redelivery = %d %s; want 403", rec.Code, rec.Body)
	}
}

func TestRedeliverFromTheCommandLine(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	st, err := store.OpenPostgres(context.Background(), url, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bury(t, st, "d-1", "octo/shop#1", "validation failed")
	ctx := context.Background()
	tests := []struct {
		name, url, id, want string // want: "" for success, else in the error
	}{
		{"a dead delivery", url, "d-1", ""},
		{"again: it is pending now", url, "d-1", "not redelivered: store: redeliver d-1: delivery is not dead (it is pending)"},
		{"an unknown id", url, "nope", `delivery "nope" is unknown`},
		{"no database", "", "d-1", "GCLOOP_DATABASE_URL is not set"},
	}
	for _, tt := range tests {
		err := Redeliver(ctx, tt.url, tt.id)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: Redeliver = %v; want %q", tt.name, err, tt.want)
		}
	}
}
