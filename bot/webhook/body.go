package webhook

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
)

// readChunk is how much of a body one read takes: the only buffer a
// request holds before its bytes arrive.
const readChunk = 16 << 10

var chunks = sync.Pool{New: func() any { b := make([]byte, readChunk); return &b }}

// errTooSlow is a body that came slower than the minimum rate.
var errTooSlow = errors.New("the body came slower than the minimum rate")

// readSigned streams req's body through the HMAC into a spool, charging
// each byte as it arrives to the budget of unverified bytes, and returns
// the body only when its HMAC is sent. Nothing is allocated from the
// announced length; the payload is made whole only once the signature
// matched.
func (rc *Receiver) readSigned(w http.ResponseWriter, req *http.Request, sent digest) ([]byte, answer, bool) {
	m := rc.sig.hash()
	defer rc.sig.put(m)
	sp := &spool{dir: rc.spoolDir, inMemory: rc.spoolAbove}
	defer sp.Close()
	var held int64
	defer func() { rc.budget.give(held) }()

	body := http.MaxBytesReader(w, req.Body, rc.max)
	p := newPace(w, rc.clock, rc.grace, rc.minRate, rc.bodyTimeout)
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	buf := *bp
	var n int64
	for {
		p.before()
		k, err := body.Read(buf)
		if k > 0 {
			if p.arrived(k) {
				return nil, slow(n), false
			}
			if !rc.budget.take(req.Context(), int64(k), rc.busyWait) {
				return nil, answer{status: http.StatusServiceUnavailable, result: Busy,
					body: errorBody("too many deliveries are being received; send it again"),
					why:  fmt.Sprintf("%d bytes of unverified bodies held, the most is %d", rc.budget.inUse(), rc.budget.max)}, false
			}
			held += int64(k)
			m.Write(buf[:k])
			if _, werr := sp.Write(buf[:k]); werr != nil {
				return nil, answer{status: http.StatusServiceUnavailable, result: StoreFailed,
					body: errorBody("the delivery could not be received; send it again"), why: werr.Error()}, false
			}
			n += int64(k)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			var tooBig *http.MaxBytesError
			var ne net.Error
			switch {
			case errors.As(err, &tooBig):
				return nil, refuse(http.StatusRequestEntityTooLarge, TooLarge, fmt.Sprintf("body over %d bytes", rc.max)), false
			case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
				return nil, slow(n), false
			}
			return nil, refuse(http.StatusBadRequest, BadRequest, "read the body: "+err.Error()), false
		}
	}
	p.done()
	rc.spoolFailed(sp.fileErr)
	if !rc.sig.matches(m, sent) {
		return nil, refuse(http.StatusUnauthorized, Unauthorized, "X-Hub-Signature-256 does not match the body"), false
	}
	b, err := sp.Bytes()
	if err != nil {
		return nil, answer{status: http.StatusServiceUnavailable, result: StoreFailed,
			body: errorBody("the delivery could not be received; send it again"), why: err.Error()}, false
	}
	return b, answer{}, true
}

func slow(n int64) answer {
	return refuse(http.StatusRequestTimeout, TooSlow, fmt.Sprintf("%v: %d bytes in", errTooSlow, n))
}
