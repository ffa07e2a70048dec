package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gcloop/gcloop/bot/event"
	"github.com/gcloop/gcloop/bot/store"
)

// MaxBody is the largest delivery body the receiver reads: GitHub caps
// webhook payloads at 25 MB.
const MaxBody = 25 << 20

// Defaults of ReceiverOptions.
const (
	// DefaultMaxUnverified is the most bytes of bodies whose signature is
	// not yet checked held at once.
	DefaultMaxUnverified = 64 << 20
	// DefaultBusyWait is how long a body waits for room among them.
	DefaultBusyWait = time.Second
	// DefaultSpoolAbove is how much of one body is kept in memory before
	// the rest goes to a file.
	DefaultSpoolAbove = 256 << 10
	// DefaultMinRate and DefaultRateGrace: a body must keep coming at
	// 16 KiB a second, with 5 s of slack.
	DefaultMinRate   = 16 << 10
	DefaultRateGrace = 5 * time.Second
	// DefaultBodyTimeout is the longest a body may take: 25 MB at 200 KiB/s.
	DefaultBodyTimeout = 2 * time.Minute
)

// Inbox is the part of the store the receiver writes to: each delivery
// it queues carries the event that logs its arrival.
type Inbox interface {
	Add(ctx context.Context, d store.Delivery) (added bool, err error)
}

// Observer is told of every delivery the receiver answered and every one
// the workers finished: the event name ("" when the request named none),
// the result, and how long it took. It must be safe for concurrent use and
// must not block (it is called on the request's path).
type Observer func(event, result string, elapsed time.Duration)

// Results of a request to the receiver, as logged and observed.
const (
	Accepted         = "accepted"          // 202: queued
	Duplicate        = "duplicate"         // 200: a delivery id seen before
	Pong             = "pong"              // 200: a ping
	Unauthorized     = "unauthorized"      // 401: no or a bad signature
	BadRequest       = "bad_request"       // 400: headers missing, JSON malformed
	TooLarge         = "too_large"         // 413: over MaxBody
	TooSlow          = "too_slow"          // 408: the body came slower than the minimum rate
	Busy             = "busy"              // 503: too many unverified bytes held; Retry-After
	UnsupportedMedia = "unsupported_media" // 415: neither JSON nor a form
	MethodNotAllowed = "method_not_allowed"
	StoreFailed      = "store_failed" // 503: the store refused the delivery
)

// ReceiverOptions are the receiver's optional settings.
type ReceiverOptions struct {
	// Wake is called after a delivery was queued (Pool.Wake); nil: the
	// workers find it when they poll.
	Wake func()
	// Logger gets one line per request; nil: slog.Default().
	Logger *slog.Logger
	// Observe, if set, is told of every request's result.
	Observe Observer
	// MaxBody caps a body's size (default and at most MaxBody).
	MaxBody int64
	// Now is the clock (default time.Now).
	Now func() time.Time

	// MaxUnverified caps the bytes of bodies whose signature is not yet
	// checked, held at once by every request together, in memory and
	// spool files (default DefaultMaxUnverified; at least MaxBody, so that
	// the largest body fits). A body takes its bytes as they arrive; one
	// that finds no room within BusyWait is answered 503 with Retry-After.
	MaxUnverified int64
	// BusyWait is how long a body waits for room (default DefaultBusyWait;
	// negative: not at all).
	BusyWait time.Duration
	// SpoolDir is where the part of a body past SpoolAbove bytes waits for
	// its signature (default os.TempDir()); where no file can be made, the
	// body stays in memory.
	SpoolDir string
	// SpoolAbove is how much of a body stays in memory (default
	// DefaultSpoolAbove).
	SpoolAbove int64
	// MinRate, RateGrace and BodyTimeout pace a body: the first byte is
	// due RateGrace after the headers, and each byte that arrives puts the
	// next one 1/MinRate seconds later, but never more than RateGrace past
	// now; all of it must come within BodyTimeout. A body that misses is
	// cut and answered 408 (defaults DefaultMinRate, DefaultRateGrace,
	// DefaultBodyTimeout).
	MinRate     int64
	RateGrace   time.Duration
	BodyTimeout time.Duration
}

// Receiver serves POST /webhook.
type Receiver struct {
	inbox   Inbox
	sig     *signer
	wake    func()
	log     *slog.Logger
	observe Observer
	max     int64
	now     func() time.Time

	budget      *budget
	busyWait    time.Duration
	spoolDir    string
	spoolAbove  int64
	minRate     int64
	grace       time.Duration
	bodyTimeout time.Duration
	spoolWarn   sync.Once
	// clock paces bodies against the connection's deadlines: always the
	// wall clock but in this package's tests (now may be a test's).
	clock func() time.Time
}

// NewReceiver is a receiver of deliveries signed with secret that queues
// them in inbox. An empty secret is refused: without one any caller could
// queue work.
func NewReceiver(secret []byte, inbox Inbox, o ReceiverOptions) (*Receiver, error) {
	if len(secret) == 0 {
		return nil, errors.New("webhook: the webhook secret is empty; set the GitHub App's webhook secret")
	}
	if inbox == nil {
		return nil, errors.New("webhook: no store for the deliveries")
	}
	r := &Receiver{inbox: inbox, sig: newSigner(secret), wake: o.Wake, log: o.Logger, observe: o.Observe, max: o.MaxBody, now: o.Now}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.max <= 0 || r.max > MaxBody {
		r.max = MaxBody
	}
	if r.now == nil {
		r.now = time.Now
	}
	r.budget = newBudget(positive(o.MaxUnverified, DefaultMaxUnverified))
	if r.budget.max < r.max {
		return nil, fmt.Errorf("webhook: %d bytes for unverified bodies is too few: want at least the largest body, %d", r.budget.max, r.max)
	}
	r.busyWait = positive(o.BusyWait, DefaultBusyWait)
	if o.BusyWait < 0 {
		r.busyWait = 0
	}
	r.spoolDir = o.SpoolDir
	r.spoolAbove = positive(o.SpoolAbove, DefaultSpoolAbove)
	r.minRate = positive(o.MinRate, DefaultMinRate)
	r.grace = positive(o.RateGrace, DefaultRateGrace)
	r.bodyTimeout = positive(o.BodyTimeout, DefaultBodyTimeout)
	r.clock = time.Now
	return r, nil
}

// positive is v, or d when v is not above zero.
func positive[T int64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// Unverified is the bytes of bodies whose signature is not yet checked
// held now (for the metrics).
func (rc *Receiver) Unverified() int64 { return rc.budget.inUse() }

// MaxUnverified is the most bytes of them held at once.
func (rc *Receiver) MaxUnverified() int64 { return rc.budget.max }

// spoolFailed logs, once, that bodies cannot be spooled to a file.
func (rc *Receiver) spoolFailed(err error) {
	if err == nil {
		return
	}
	rc.spoolWarn.Do(func() {
		rc.log.Warn("webhook: large bodies cannot be spooled to a file and stay in memory until their signature is checked (within the bound of unverified bytes); set TMPDIR to a writable directory",
			"error", err.Error())
	})
}

// answer is one request's outcome, for the response, the log and the
// observer.
type answer struct {
	status int
	result string
	body   []byte // JSON
	why    string // for the log, on refusals
	route  route
	signed bool // the signature was checked and valid
}

// ServeHTTP handles one delivery.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	start := rc.now()
	name := req.Header.Get("X-GitHub-Event")
	id := req.Header.Get("X-GitHub-Delivery")
	a := rc.receive(w, req, name, id)
	switch a.result {
	case MethodNotAllowed:
		w.Header().Set("Allow", http.MethodPost)
	case Busy:
		w.Header().Set("Retry-After", "5")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	w.Write(a.body)
	elapsed := rc.now().Sub(start)
	attrs := []slog.Attr{
		slog.String("delivery", clip(id)), slog.String("event", clip(name)), slog.String("result", a.result),
		slog.Int("status", a.status), slog.Duration("elapsed", elapsed),
	}
	if a.route.Key != "" {
		attrs = append(attrs, slog.String("key", a.route.Key))
	}
	if a.why != "" {
		attrs = append(attrs, slog.String("error", a.why))
	}
	level := slog.LevelInfo
	if a.status >= 500 {
		level = slog.LevelError
	} else if a.status >= 400 {
		level = slog.LevelWarn
	}
	rc.log.LogAttrs(req.Context(), level, "webhook delivery", attrs...)
	if rc.observe != nil {
		// The event of a request that was not signed, or whose header is
		// no event name, is "": no caller without the secret can make up
		// metric labels.
		observed := ""
		if a.signed && validName(name) {
			observed = name
		}
		rc.observe(observed, a.result, elapsed)
	}
}

// receive checks, reads and queues one delivery. The signature is checked
// on the raw body, streamed, before any of it is parsed or kept whole.
func (rc *Receiver) receive(w http.ResponseWriter, req *http.Request, name, id string) answer {
	if req.Method != http.MethodPost {
		return refuse(http.StatusMethodNotAllowed, MethodNotAllowed, "method "+req.Method+", want POST")
	}
	sig := req.Header.Get("X-Hub-Signature-256")
	if sig == "" {
		return refuse(http.StatusUnauthorized, Unauthorized, "no X-Hub-Signature-256 header")
	}
	sent, ok := parseSignature(sig)
	if !ok {
		return refuse(http.StatusUnauthorized, Unauthorized, "X-Hub-Signature-256 is not sha256= and 64 hex digits")
	}
	if req.ContentLength > rc.max {
		return refuse(http.StatusRequestEntityTooLarge, TooLarge, fmt.Sprintf("body of %d bytes, over %d", req.ContentLength, rc.max))
	}
	body, a, ok := rc.readSigned(w, req, sent)
	if !ok {
		return a
	}
	a = rc.signed(req, name, id, body)
	a.signed = true
	return a
}

// signed checks and queues a delivery whose signature is valid.
func (rc *Receiver) signed(req *http.Request, name, id string, body []byte) answer {
	payload, a, ok := unwrap(req.Header.Get("Content-Type"), body)
	if !ok {
		return a
	}
	if name == "" || !validName(name) {
		return refuse(http.StatusBadRequest, BadRequest, "X-GitHub-Event header missing or not an event name")
	}
	if id == "" || !validID(id) {
		return refuse(http.StatusBadRequest, BadRequest, "X-GitHub-Delivery header missing or not a delivery id")
	}
	rt, err := routeOf(name, payload)
	if err != nil {
		return refuse(http.StatusBadRequest, BadRequest, "the "+name+" payload: "+err.Error())
	}
	if name == "ping" {
		return answer{status: http.StatusOK, result: Pong, body: []byte(`{"pong":true}` + "\n"), route: rt}
	}
	d := store.Delivery{ID: id, Event: name, Payload: payload, Key: rt.Key, Installation: rt.Installation, Received: rc.now().UTC(), Digest: bodyDigest(body),
		Arrival: arrival(id, name, rt)}
	added, err := rc.inbox.Add(req.Context(), d)
	if err != nil {
		return answer{status: http.StatusServiceUnavailable, result: StoreFailed, route: rt,
			body: []byte(`{"error":"the delivery could not be stored; send it again"}` + "\n"), why: "store the delivery: " + err.Error()}
	}
	if !added {
		return answer{status: http.StatusOK, result: Duplicate, body: []byte(`{"duplicate":true}` + "\n"), route: rt}
	}
	if rc.wake != nil {
		rc.wake()
	}
	return answer{status: http.StatusAccepted, result: Accepted, body: deliveryBody(id), route: rt}
}

// unwrap returns the JSON payload of a body of content type ct: the body
// itself, or the payload field of a form.
func unwrap(ct string, body []byte) ([]byte, answer, bool) {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, refuse(http.StatusUnsupportedMediaType, UnsupportedMedia, fmt.Sprintf("content type %q, want application/json or application/x-www-form-urlencoded", clip(ct))), false
	}
	switch mt {
	case "application/json":
		return body, answer{}, true
	case "application/x-www-form-urlencoded":
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, refuse(http.StatusBadRequest, BadRequest, "form body: "+err.Error()), false
		}
		p, ok := form["payload"]
		if !ok || len(p) != 1 {
			return nil, refuse(http.StatusBadRequest, BadRequest, "form body: want one payload field"), false
		}
		return []byte(p[0]), answer{}, true
	}
	return nil, refuse(http.StatusUnsupportedMediaType, UnsupportedMedia, fmt.Sprintf("content type %q, want application/json or application/x-www-form-urlencoded", clip(mt))), false
}

// arrival is the event the store logs as it queues a delivery, in the
// same step.
func arrival(id, name string, rt route) event.Event {
	data, _ := json.Marshal(deliveryData{Delivery: id, Event: name, Result: Accepted})
	return event.Event{Type: event.Delivery, Repo: rt.Repo, PR: rt.PR, Data: data}
}

// deliveryData is the data of a delivery event.
type deliveryData struct {
	Delivery  string `json:"delivery"`
	Event     string `json:"event"`
	Result    string `json:"result"`
	Attempt   int    `json:"attempt,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms,omitempty"`
	Error     string `json:"error,omitempty"`
}

func refuse(status int, result, why string) answer {
	return answer{status: status, result: result, why: why, body: errorBody(why)}
}

func errorBody(msg string) []byte {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return append(b, '\n')
}

func deliveryBody(id string) []byte {
	// id is validID: nothing in it needs escaping.
	return []byte(`{"delivery":` + strconv.Quote(id) + "}\n")
}

// validName reports whether s looks like an event name: lower-case
// letters and underscores, at most 64 of them.
func validName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}

// validID reports whether s looks like a delivery id: GitHub sends a GUID;
// anything of letters, digits, '-', '_' and '.' up to 128 is accepted.
func validID(s string) bool {
	if len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// clip bounds a header's value for the log.
func clip(s string) string {
	if len(s) > 128 {
		return s[:128] + "…"
	}
	return s
}
