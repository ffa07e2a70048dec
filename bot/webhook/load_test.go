package webhook_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/gcloop/gcloop/internal/testkit/pgtest"
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
	{"postgres", func(tb testing.TB) loadStore { return newPostgresStore(tb, pgtest.URL(tb)).Store }},
}

// digestless is a store that does not deduplicate by body.
type digestless struct{ *store.Memory }

func (s digestless) Add(ctx context.Context, d store.Delivery) (bool, error) {
	d.Digest = ""
	return s.Memory.Add(ctx, d)
}

// BenchmarkReceive is the receiver's own cost of one ~11 KB issue_comment
// delivery: signature, the key, the store's Add, the event — no network.
func BenchmarkReceive(b *testing.B) {
	body := fixture(b, "issue_comment.created.json")
	sig := webhook.Sign(secret, body)
	// One body under many ids would be refused as replays after the
	// first: the store here forgets the digest (the receiver still
	// computes it).
	rc, err := webhook.NewReceiver(secret, digestless{store.NewMemory(store.Options{})}, webhook.ReceiverOptions{Logger: quiet})
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
	// Each delivery is a body of its own, signed before the clock starts:
	// the store refuses a body seen before, whatever its delivery id.
	base := fixture(b, "issue_comment.created.json")
	bodies, sigs := make([][]byte, b.N+1), make([]string, b.N+1)
	for i := 1; i <= b.N; i++ {
		bodies[i] = append([]byte(`{"load":`+strconv.Itoa(i)+`,`), base[1:]...)
		sigs[i] = webhook.Sign(secret, bodies[i])
	}
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
	addr := strings.TrimPrefix(srv.URL, "http://")
	head := "POST /webhook HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: GitHub-Hookshot/load\r\nContent-Type: application/json\r\n" +
		"X-GitHub-Event: issue_comment\r\nX-Hub-Signature-256: "
	run := strconv.FormatInt(time.Now().UnixNano(), 36)

	var next atomic.Int64
	lat := make([][]time.Duration, clients)
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0, child0 := time.Now(), cpuTime(), childCPU()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A keep-alive connection written and read by hand, as a load
			// generator such as wrk does: the client takes as little of the
			// machine as it can, so the figures are the receiver's.
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				b.Error(err)
				return
			}
			defer conn.Close()
			bw, br := bufio.NewWriterSize(conn, 32<<10), bufio.NewReader(conn)
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				t0 := time.Now()
				bw.WriteString(head)
				bw.WriteString(sigs[i] + "\r\nContent-Length: " + strconv.Itoa(len(bodies[i])) + "\r\nX-GitHub-Delivery: ")
				bw.WriteString("load-" + run + "-" + strconv.FormatInt(i, 10) + "\r\n\r\n")
				bw.Write(bodies[i])
				if err := bw.Flush(); err != nil {
					b.Error(err)
					return
				}
				status, err := readResponse(br)
				if err != nil {
					b.Error(err)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
				if status != http.StatusAccepted {
					b.Errorf("status %d", status)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed, cpu, child := time.Since(start), cpuTime()-cpu0, childCPU()-child0
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
	// And the database server's (its backends'), where it is a child of
	// this process: with the above, what one delivery costs the machine.
	if child > 0 {
		b.ReportMetric(float64(child.Microseconds())/float64(len(all)), "server-cpu-µs/delivery")
	}
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readResponse reads one HTTP/1.1 response with a Content-Length and
// returns its status.
func readResponse(br *bufio.Reader) (int, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 {
		return 0, fmt.Errorf("status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("status line %q", line)
	}
	length := -1
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 {
			break
		}
		if k, v, ok := strings.Cut(string(line), ":"); ok && strings.EqualFold(k, "Content-Length") {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return 0, fmt.Errorf("header %q", line)
			}
		}
	}
	if length < 0 {
		return 0, errors.New("a response without Content-Length")
	}
	_, err = br.Discard(length)
	return status, err
}
