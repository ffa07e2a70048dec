package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log the bot writes from many goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// demo is a running `gcloop bot --demo`, in process.
type demo struct {
	url    string
	world  *World
	out    *syncBuffer
	log    *syncBuffer
	script chan error
	exited chan struct{} // closed when Run returned, with err
	err    error
	stop   context.CancelFunc
}

// startDemo runs the demo with its day played fast, and waits until it
// listens. begin, if not nil, holds the day back until closed.
func startDemo(t *testing.T, begin <-chan struct{}) *demo {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d := &demo{out: &syncBuffer{}, log: &syncBuffer{}, script: make(chan error, 1), exited: make(chan struct{}), stop: cancel}
	urls := make(chan string, 1)
	worlds := make(chan *World, 1)
	go func() {
		defer close(d.exited)
		d.err = Run(ctx, Options{
			Listen: "127.0.0.1:0", Out: d.out, Fast: true, Begin: begin,
			Logger:     slog.New(slog.NewJSONHandler(d.log, &slog.HandlerOptions{Level: slog.LevelInfo})),
			Listening:  func(url string) { urls <- url },
			ScriptDone: func(err error) { d.script <- err },
			World:      func(w *World) { worlds <- w },
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-d.exited:
		case <-time.After(30 * time.Second):
			t.Errorf("the demo did not stop within 30 s of its context's end")
		}
	})
	select {
	case d.world = <-worlds:
	case <-d.exited:
		t.Fatalf("the demo ended before it built its world: %v", d.err)
	}
	select {
	case d.url = <-urls:
	case <-d.exited:
		t.Fatalf("the demo ended before it listened: %v\n%s", d.err, d.log)
	case <-time.After(30 * time.Second):
		t.Fatalf("the demo did not listen within 30 s\n%s", d.log)
	}
	return d
}

// TestDayEveryStepShowsOnTheFake plays the day against the real bot and
// the fake GitHub: every step's effect shows (report, check run, fix
// issues, reactions, the dispatch), the API lists the three loops as they
// ended, the fake saw nothing GitHub would refuse, and the end of the
// context stops the bot cleanly.
func TestDayEveryStepShowsOnTheFake(t *testing.T) {
	t.Parallel()
	d := startDemo(t, nil)
	select {
	case err := <-d.script:
		if err != nil {
			t.Fatalf("the day:\n%v\nbot log:\n%s", err, d.log)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("the day did not end within 2 minutes\n%s", d.out)
	}
	if !strings.Contains(d.out.String(), "gcloop bot --demo: open "+d.url+"/ ") {
		t.Errorf("the output does not give the dashboard's address %s/:\n%s", d.url, d.out)
	}

	// The feed's decision event follows the round's last write to the
	// fake: read /api/loops until it caught up (bounded).
	want := map[string]string{
		"acme/shop#1 review":    "converge",
		"acme/shop#2 review":    "converge",
		"acme/api#1 validation": "fix", // approved by a command, after its fix round
	}
	var got map[string]string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = loopDecisions(t, d.url)
		if maps.Equal(got, want) || time.Now().After(deadline) {
			break
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("/api/loops: %s is %q, want %q (all: %v)", k, got[k], v, got)
		}
	}

	d.stop()
	select {
	case <-d.exited:
		if d.err != nil {
			t.Errorf("Run after the context ended = %v, want nil", d.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the demo did not stop within 30 s")
	}
	log := d.log.String()
	if strings.Contains(log, `"level":"ERROR"`) {
		t.Errorf("errors in the bot's log (the fake's refusals are logged as errors):\n%s", log)
	}
	if !strings.Contains(log, `"msg":"stopped"`) {
		t.Errorf("no clean stop in the log:\n%s", log)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestEffectsAreMissingBeforeTheDay: on the world as built, no step's
// effect is there yet, so that a step that did nothing cannot pass.
func TestEffectsAreMissingBeforeTheDay(t *testing.T) {
	t.Parallel()
	w, err := NewWorld()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	for i, st := range Day() {
		if err := st.Done(w, st.Pull(w)); err == nil {
			t.Errorf("step %d (%s) is done before anything happened", i+1, st.Say)
		}
	}
}

// TestDayPace: the first round starts within 5 s, the day ends within a
// minute, in order.
func TestDayPace(t *testing.T) {
	t.Parallel()
	day := Day()
	if day[0].At > 5*time.Second {
		t.Errorf("the first step is at %s, want within 5 s", day[0].At)
	}
	if last := day[len(day)-1].At; last > 50*time.Second {
		t.Errorf("the last step is at %s, want the day within a minute", last)
	}
	for i := 1; i < len(day); i++ {
		if day[i].At <= day[i-1].At {
			t.Errorf("step %d at %s is not after step %d at %s", i+1, day[i].At, i, day[i-1].At)
		}
	}
}

// loopDecisions reads /api/loops: each loop's latest decision.
func loopDecisions(t *testing.T, url string) map[string]string {
	t.Helper()
	resp, err := http.Get(url + "/api/loops")
	if err != nil {
		t.Fatal(err)
	}
	var loops []struct {
		Repo     string `json:"repo"`
		PR       int    `json:"pr"`
		Loop     string `json:"loop"`
		Decision string `json:"decision"`
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := json.Unmarshal(body, &loops); err != nil {
		t.Fatalf("/api/loops: %v\n%s", err, body)
	}
	got := map[string]string{}
	for _, l := range loops {
		got[l.Repo+"#"+itoa(l.PR)+" "+l.Loop] = l.Decision
	}
	return got
}
