package feed

import (
	"bufio"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// store.Store is what the bot hands the feed.
var _ Log = store.Store(nil)

const subscribers = 1000

// BenchmarkFanout1000 measures one event's way from Append to the last of
// 1000 websocket subscribers over loopback (the target: under 100 ms).
func BenchmarkFanout1000(b *testing.B) {
	st := store.NewMemory(store.Options{})
	defer st.Close()
	h, srv := testHub(b, st, Options{})
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"
	var got atomic.Int64
	var want atomic.Int64
	all := make(chan struct{}, 1)
	var wg sync.WaitGroup
	conns := make([]*websocket.Conn, 0, subscribers)
	for range subscribers {
		c, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
	}
	waitFor(b, "1000 subscribers", func() bool { return h.Subscribers() == subscribers })
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if _, _, err := c.ReadMessage(); err != nil {
					return
				}
				if got.Add(1) == want.Load() {
					all <- struct{}{}
				}
			}
		}()
	}
	var worst time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		want.Store(int64(subscribers * (i + 1)))
		start := time.Now()
		if _, err := st.Append(context.Background(), event.Event{Type: event.Decision, Repo: "o/r", PR: 1, Loop: "review", Data: []byte(`{"round":1,"decision":"fix"}`)}); err != nil {
			b.Fatal(err)
		}
		<-all
		worst = max(worst, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	// CPU time (user + system, server and clients) per fan-out: what the
	// wall time comes to on a machine with nothing else to do.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	for _, c := range conns {
		_ = c.Close()
	}
	wg.Wait()
}

// BenchmarkFanout1000Server is BenchmarkFanout1000 with the subscribers in
// another process, so that cpu-ms/op is the server's own CPU time per
// event fanned out to 1000 subscribers.
func BenchmarkFanout1000Server(b *testing.B) {
	st := store.NewMemory(store.Options{})
	defer st.Close()
	h, srv := testHub(b, st, Options{})
	sc := idleClients(b, h, srv, true)
	var worst time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		e, err := st.Append(context.Background(), event.Event{Type: event.Decision, Repo: "o/r", PR: 1, Loop: "review", Data: []byte(`{"round":1,"decision":"fix"}`)})
		if err != nil {
			b.Fatal(err)
		}
		want := "got " + strconv.FormatInt(e.ID, 10)
		for sc.Scan() && sc.Text() != want {
		}
		worst = max(worst, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "server-cpu-ms/op")
}

// BenchmarkIdleSubscriberMemory measures what one idle subscriber costs
// the server: heap and goroutine stacks (runtime.MemStats), with the 1000
// clients in another process so that their memory is not counted.
func BenchmarkIdleSubscriberMemory(b *testing.B) {
	st := store.NewMemory(store.Options{})
	defer st.Close()
	h, srv := testHub(b, st, Options{})
	before := memNow()
	goBefore := runtime.NumGoroutine()

	idleClients(b, h, srv, false)
	after := memNow()
	goAfter := runtime.NumGoroutine()
	for b.Loop() {
	}
	per := float64(after-before) / subscribers
	b.ReportMetric(per, "B/subscriber")
	b.ReportMetric(float64(goAfter-goBefore)/subscribers, "goroutines/subscriber")
}

// idleClients starts the subscribers of srv in another process
// (TestHelperIdleClients), waits until h counts them all and returns that
// process's output from there on; with report it prints "got <id>" once
// every subscriber has read event id. The process ends with b.
func idleClients(b *testing.B, h *Hub, srv *httptest.Server, report bool) *bufio.Scanner {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperIdleClients$")
	cmd.Env = append(os.Environ(), "FEED_IDLE_URL=ws"+strings.TrimPrefix(srv.URL, "http")+"/ws", "FEED_IDLE_N="+strconv.Itoa(subscribers))
	if report {
		cmd.Env = append(cmd.Env, "FEED_REPORT=1")
	}
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
	}
	waitFor(b, "1000 subscribers", func() bool { return h.Subscribers() == subscribers })
	return sc
}

// memNow is the heap and stack memory in use after a collection.
func memNow() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// TestHelperIdleClients is the client process of
// BenchmarkIdleSubscriberMemory: it opens FEED_IDLE_N connections, answers
// pings, prints "ready" and waits for its stdin to close.
func TestHelperIdleClients(t *testing.T) {
	url, n := os.Getenv("FEED_IDLE_URL"), os.Getenv("FEED_IDLE_N")
	if url == "" {
		t.Skip("the client process of BenchmarkIdleSubscriberMemory")
	}
	count, _ := strconv.Atoi(n)
	report := os.Getenv("FEED_REPORT") != ""
	var mu sync.Mutex
	seen := map[int64]int{} // event id → subscribers that read it
	for range count {
		c, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				_, b, err := c.ReadMessage()
				if err != nil {
					return
				}
				if !report {
					continue
				}
				var e struct{ ID int64 }
				_ = jsonUnmarshal(b, &e)
				mu.Lock()
				seen[e.ID]++
				if seen[e.ID] == count {
					delete(seen, e.ID)
					fmt.Printf("got %d\n", e.ID)
				}
				mu.Unlock()
			}
		}()
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}
