package webhook

import (
	"net/http"
	"time"
)

// pace holds a body to a minimum rate. Each byte that arrives earns the
// sender 1/minRate seconds until the next one is due, but never more than
// grace ahead of now: a sender must keep up the rate over any stretch of
// the body, with grace of slack, and cannot bank time by sending fast
// first and then holding its bytes (and the receiver's budget) while it
// idles. All of the body must come within the body timeout.
//
// Before each read it sets the connection's read deadline to when the next
// byte is due, so that a sender that stalls or trickles (a slow-loris
// holding a connection with a byte a second) is cut by the server, not
// waited for; where the connection takes no deadline (a test's recorder),
// a read that came later than due is refused after the fact.
type pace struct {
	rc      *http.ResponseController // nil: the connection takes no deadline
	now     func() time.Time
	grace   time.Duration
	minRate int64 // bytes a second
	due     time.Time
	limit   time.Time
}

func newPace(w http.ResponseWriter, now func() time.Time, grace time.Duration, minRate int64, timeout time.Duration) *pace {
	start := now()
	return &pace{rc: http.NewResponseController(w), now: now, grace: grace, minRate: minRate,
		due: start.Add(grace), limit: start.Add(timeout)}
}

// before is called before each read: the read must end by when the next
// byte is due.
func (p *pace) before() {
	if p.rc != nil && p.rc.SetReadDeadline(p.deadline()) != nil {
		p.rc = nil
	}
}

func (p *pace) deadline() time.Time {
	if p.due.After(p.limit) {
		return p.limit
	}
	return p.due
}

// arrived records k bytes that a read returned, and reports whether they
// came later than due.
func (p *pace) arrived(k int) (late bool) {
	now := p.now()
	if now.After(p.deadline()) {
		return true
	}
	p.due = p.due.Add(time.Duration(k) * time.Second / time.Duration(p.minRate))
	if most := now.Add(p.grace); p.due.After(most) {
		p.due = most
	}
	return false
}

// done lifts the deadline once the body is read: the rest of the request
// (the store's answer) must not be cut by it.
func (p *pace) done() {
	if p.rc != nil {
		_ = p.rc.SetReadDeadline(time.Time{})
	}
}
