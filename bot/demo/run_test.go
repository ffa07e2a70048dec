package demo

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/webhook"
)

// TestRunnerSaysWhatWentWrong: the runner signs each delivery with the
// secret, and names the step whose delivery the bot refused or whose
// effect never showed; the other steps still run.
func TestRunnerSaysWhatWentWrong(t *testing.T) {
	t.Parallel()
	secret := []byte("a-secret-of-twenty-characters")
	var (
		mu  sync.Mutex
		got []string
	)
	bot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Hub-Signature-256") != webhook.Sign(secret, body) {
			t.Errorf("delivery %s not signed with the secret", r.Header.Get("X-GitHub-Delivery"))
		}
		mu.Lock()
		got = append(got, r.Header.Get("X-GitHub-Event"))
		mu.Unlock()
		if r.Header.Get("X-GitHub-Event") == "refused" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(bot.Close)

	p := &Pull{Repo: Shop, Number: 1}
	step := func(event string, done error) Step {
		return Step{Pull: func(*World) *Pull { return p }, Say: event,
			Do: func(*World, *Pull) (Delivery, error) {
				return Delivery{Event: event, ID: newID(), Body: []byte(`{}`)}, nil
			},
			Done: func(*World, *Pull) error { return done }}
	}
	var said []string
	r := &Runner{URL: bot.URL, Secret: secret, Wait: 100 * time.Millisecond,
		Say: func(format string, args ...any) { said = append(said, format) }}
	err := r.Run(context.Background(), []Step{
		step("refused", nil),
		step("ignored", errors.New("no report comment")),
		step("fine", nil),
	})
	if err == nil {
		t.Fatal("Run = nil, want the two failed steps named")
	}
	for _, want := range []string{"step 1 (acme/shop#1: refused): deliver refused", "401 Unauthorized", "step 2 (acme/shop#1: ignored): not seen within 100ms: no report comment"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Run = %v\nwant it to say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "step 3") {
		t.Errorf("Run = %v: step 3 succeeded", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != "refused,ignored,fine" {
		t.Errorf("deliveries %v, want the three steps in order", got)
	}
}

// TestRunnerStopsWithItsContext: a runner waiting for the next step's time
// returns when its context ends.
func TestRunnerStopsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &Runner{Pace: 1}
	err := r.Run(ctx, []Step{{At: time.Hour}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v, want context.Canceled", err)
	}
}

// TestLoopback: a wildcard listening address is reached on 127.0.0.1.
func TestLoopback(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ addr, want string }{
		{"127.0.0.1:8080", "127.0.0.1:8080"},
		{"0.0.0.0:8080", "127.0.0.1:8080"},
		{"[::]:9000", "127.0.0.1:9000"},
		{"[::1]:9000", "[::1]:9000"},
	} {
		if got := loopback(addrString(tt.addr)); got != tt.want {
			t.Errorf("loopback(%s) = %s, want %s", tt.addr, got, tt.want)
		}
	}
}

type addrString string

func (a addrString) Network() string { return "tcp" }
func (a addrString) String() string  { return string(a) }
