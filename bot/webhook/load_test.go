package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/webhook"
)

// loadStore is a store the load test runs on.
type loadStore interface {
	webhook.Inbox
	webhook.Queue
}

// loadStores are the stores BenchmarkLoad measures, one sub-benchmark
// each. A store that needs a server (PostgreSQL) adds an entry that opens
// it, or skips when none is configured.
var loadStores = []struct {
	name string
	open func(tb testing.TB) loadStore
}{
	{"memory", func(testing.TB) loadStore { return store.NewMemory(store.Options{}) }},
}

// BenchmarkReceive is the receiver's own cost of one ~11 KB issue_comment
// delivery: signature, the key, the store's Add, the event — no network.
func BenchmarkReceive(b *testing.B) {
	body := fixture(b, "issue_comment.created.json")
	sig := webhook.Sign(secret, body)
	rc, err := webhook.NewReceiver(secret, store.NewMemory(store.Options{}), webhook.ReceiverOptions{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	n := 0
	cpu0 := cpuTime()
	defer func() { b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(n), "cpu-ns/op") }()
	for b.Loop() {
		n++
		req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", "issue_comment")
		req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("bench-%d", n))
		req.Header.Set("X-Hub-Signature-256", sig)
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, req)
		if w.Code != http.StatusAccepted {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}

// BenchmarkLoad sends signed ~11 KB issue_comment deliveries with
// distinct ids over loopback TCP from a pool of keep-alive clients to a
// receiver whose workers drain the queue meanwhile, and reports the
// deliveries acknowledged per second and the p50 and p99 latency. Run it
// by hand: go test -run '^$' -bench Load -benchtime 5s ./bot/webhook
func BenchmarkLoad(b *testing.B) {
	for _, st := range loadStores {
		for _, clients := range []int{8, 32} {
			b.Run(fmt.Sprintf("%s/clients=%d", st.name, clients), func(b *testing.B) {
				load(b, st.open(b), clients)
			})
		}
	}
}

func load(b *testing.B, st loadStore, clients int) {
	body := fixture(b, "issue_comment.created.json")
	sig := webhook.Sign(secret, body)
	ignore := handlerFunc(func(context.Context, string, string, []byte) error { return delivery.ErrIgnored })
	pool, err := webhook.NewPool(st, ignore, webhook.PoolOptions{Logger: quiet, Name: "load"})
	if err != nil {
		b.Fatal(err)
	}
	rc, err := webhook.NewReceiver(secret, st, webhook.ReceiverOptions{Logger: quiet, Wake: pool.Wake})
	if err != nil {
		b.Fatal(err)
	}
	pool.Start()
	srv := httptest.NewServer(rc)
	defer func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pool.Shutdown(ctx)
	}()
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	var next atomic.Int64
	run := fmt.Sprintf("%d", time.Now().UnixNano())
	lat := make([][]time.Duration, clients)
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-GitHub-Event", "issue_comment")
				req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("load-%s-%d", run, i))
				req.Header.Set("X-Hub-Signature-256", sig)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[c] = append(lat[c], time.Since(t0))
				if resp.StatusCode != http.StatusAccepted {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	// The process's CPU time per delivery, clients included: what the
	// figures above would be on idle cores, when other processes share them.
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(all)), "cpu-µs/delivery")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
