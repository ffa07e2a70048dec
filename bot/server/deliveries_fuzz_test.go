package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/gcloop/gcloop/bot/store"
)

// FuzzDeliveriesAPI: any query and delivery id is answered with JSON and
// one of the API's statuses, never a panic; a repository a login may not
// read is never shown.
func FuzzDeliveriesAPI(f *testing.F) {
	f.Add("dead", "10", "d-1", true)
	f.Add("dead", "-1", "nope", false)
	f.Add("pending", "1001", "", true)
	f.Add("dead", "1e3", "../../x", false)
	st := store.NewMemory(store.Options{})
	f.Cleanup(func() { st.Close() })
	for _, d := range []struct{ id, key string }{{"d-1", "octo/shop#1"}, {"d-2", "evil/x@abc"}, {"d-3", ""}} {
		if _, err := st.Add(context.Background(), store.Delivery{ID: d.id, Event: "star", Key: d.key}); err != nil {
			f.Fatal(err)
		}
		c, _, _ := st.Claim(context.Background(), "f", 3600e9)
		if err := st.Bury(context.Background(), c.ID, "f", "x"); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, state, limit, id string, login bool) {
		a := &deliveriesAPI{store: deadOnly{st}, log: quiet(), filter: func(*http.Request) func(context.Context, string) bool {
			if !login {
				return nil
			}
			return func(_ context.Context, repo string) bool { return repo == "octo/shop" }
		}}
		rec := httptest.NewRecorder()
		a.list(rec, httptest.NewRequest("GET", "/api/deliveries?state="+url.QueryEscape(state)+"&limit="+url.QueryEscape(limit), nil))
		var page deadPageJSON
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			t.Fatalf("list: %d %q is not JSON: %v", rec.Code, rec.Body, err)
		}
		if rec.Code != 200 && rec.Code != 400 {
			t.Fatalf("list: status %d", rec.Code)
		}
		for _, d := range page.Deliveries {
			if login && d.Repo != "octo/shop" {
				t.Fatalf("a login was shown %s of %q", d.ID, d.Repo)
			}
		}
		rec = httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/api/deliveries/x/redeliver", nil)
		req.SetPathValue("id", id)
		req.Header.Set(OperatorHeader, "1")
		a.redeliver(rec, req)
		switch rec.Code {
		case 200, 403, 404, 409, 410:
		default:
			t.Fatalf("redeliver(%q): status %d", id, rec.Code)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("redeliver(%q): %q is not JSON", id, rec.Body)
		}
	})
}

// deadOnly is the store with redeliveries that change nothing, so that
// every fuzz input meets the same dead deliveries.
type deadOnly struct{ *store.Memory }

func (d deadOnly) Redeliver(ctx context.Context, id string) error {
	dead, _, err := d.Dead(ctx, 10)
	if err != nil {
		return err
	}
	for _, x := range dead {
		if x.ID == id {
			return nil
		}
	}
	return store.ErrUnknown
}
