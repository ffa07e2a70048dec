package server

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/webhook"
)

// floodSecret is the webhook secret of the flood tests' bot.
const floodSecret = "flood-test-secret-0123456789abcdef"

// flood opens n connections to base's /webhook, each claiming a body of
// 25 MB with a made-up signature and sending its first bytes; every second
// one then trickles a byte every trickle, the others idle. close ends them.
func flood(t testing.TB, base string, n int, trickle time.Duration) (end func()) {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	conns := make([]net.Conn, 0, n)
	stop := make(chan struct{})
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		head := "POST /webhook HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"X-GitHub-Event: issue_comment\r\nX-GitHub-Delivery: flood-" + strconv.Itoa(i) + "\r\n" +
			"X-Hub-Signature-256: sha256=" + strings.Repeat("0", 64) + "\r\n" +
			"Content-Length: " + strconv.Itoa(webhook.MaxBody) + "\r\n\r\n" + `{"action":`
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			go func() {
				tick := time.NewTicker(trickle)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						if _, err := c.Write([]byte(" ")); err != nil {
							return
						}
					}
				}
			}()
		}
	}
	return func() {
		close(stop)
		for _, c := range conns {
			c.Close()
		}
	}
}

// waitHeld waits until the bot's receiver holds at least n bytes of
// unverified bodies, as its metrics say.
func waitHeld(t testing.TB, base string, n int) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^gcloop_webhook_unverified_bytes (\S+)$`)
	for i := 0; ; i++ {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		held := -1.0
		if m := re.FindSubmatch(b); m != nil {
			held, _ = strconv.ParseFloat(string(m[1]), 64)
		}
		if held >= float64(n) {
			return
		}
		if i == 1000 {
			t.Fatalf("the receiver holds %v unverified bytes, want %d", held, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// heapInuse is the heap in use after a collection.
func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// vmHWM is the process's peak resident memory in bytes from /proc, or -1
// where there is none.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// installationDelivery is a signed installation delivery: the workers
// only refresh a cache for it.
func installationDelivery(t testing.TB, base, id string) *http.Request {
	t.Helper()
	body := []byte(`{"action":"new_permissions_accepted","installation":{"id":77}}`)
	req, err := http.NewRequest(http.MethodPost, base+"/webhook", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "installation")
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign([]byte(floodSecret), body))
	return req
}

// TestFloodOfUnsignedBodiesHoldsNoMemory is the receiver's promise: 40
// connections that each claim a 25 MB body, send a few bytes and then idle
// or trickle hold next to no memory, and a valid delivery sent meanwhile is
// accepted. Not parallel: it measures the process's heap.
func TestFloodOfUnsignedBodiesHoldsNoMemory(t *testing.T) {
	gh := ghfake.New(t)
	s := tokenServer(t, gh, "GCLOOP_WEBHOOK_SECRET", floodSecret)
	base, stop := serve(t, s)
	defer stop()
	before := heapInuse()
	end := flood(t, base, 40, 100*time.Millisecond)
	defer end()
	// Every connection has reached the receiver once it holds their first
	// bytes.
	waitHeld(t, base, 40*len(`{"action":`))
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(installationDelivery(t, base, "valid-1"))
	if err != nil {
		t.Fatalf("the valid delivery got no answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var peak uint64
	for range 5 {
		time.Sleep(50 * time.Millisecond)
		peak = max(peak, heapInuse())
	}
	grew := int64(peak) - int64(before)
	hwm := vmHWM()
	t.Logf("heap in use: %d MiB before, %d MiB at the peak with 40 flood connections (grew %d MiB); peak RSS (VmHWM) %d MiB",
		before>>20, peak>>20, grew>>20, hwm>>20)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("the valid delivery: %d %s, want 202", resp.StatusCode, b)
	}
	const bound = 32 << 20
	if grew > bound {
		t.Errorf("the heap grew by %d MiB under the flood, want at most %d MiB", grew>>20, bound>>20)
	}
	if hwm > 256<<20 {
		t.Errorf("the process's peak RSS is %d MiB, want under 256 MiB", hwm>>20)
	}
}

// BenchmarkDeliveryUnderFlood times a valid delivery's answer while 40
// connections hold unsigned 25 MB claims open (flood=40), and without
// them (flood=0).
func BenchmarkDeliveryUnderFlood(b *testing.B) {
	for _, n := range []int{0, 40} {
		b.Run("flood="+strconv.Itoa(n), func(b *testing.B) {
			gh := ghfake.New(b)
			s := tokenServer(b, gh, "GCLOOP_WEBHOOK_SECRET", floodSecret)
			base, stop := serve(b, s)
			defer stop()
			end := flood(b, base, n, 100*time.Millisecond)
			defer end()
			waitHeld(b, base, n*len(`{"action":`))
			client := &http.Client{Timeout: 10 * time.Second}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				resp, err := client.Do(installationDelivery(b, base, "bench-"+strconv.Itoa(i)))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					b.Fatalf("status %d, want 202", resp.StatusCode)
				}
			}
		})
	}
}
