package webhook

import (
	"bytes"
	"errors"
	"strconv"
)

// route is what the receiver reads of a delivery: where its work goes.
type route struct {
	Key          string // serialization key: "owner/name#pr", "owner/name@sha" or ""
	Repo         string // "owner/name", "" when the delivery names none
	PR           int    // the pull request, 0 when none
	Installation int64
}

// payload holds the members of a delivery that make its route. Member
// names match as encoding/json matches them (exactly or with case folded);
// null resets an object and leaves a scalar; a repeated object member
// merges into the earlier one; a member of the wrong type refuses the
// payload — so a payload routes exactly as go-github would decode it.
type payload struct {
	number       int64
	installation int64
	fullName     string
	name         string
	ownerLogin   string
	issueNumber  int64
	issuePull    bool  // issue.pull_request present and not null
	pullNumber   int64 // pull_request.number
	headSHA      string
	runPulls     int   // len(workflow_run.pull_requests)
	runPull      int64 // workflow_run.pull_requests[0].number
	runPullKept  bool  // a first element exists behind the slice's length
}

// routeOf reads the route of a delivery of event from its JSON payload in
// one pass, decoding only the members it needs; an error is a payload
// that is not one JSON object, or whose members have the wrong types.
func routeOf(event string, body []byte) (route, error) {
	s := newScanner(body)
	if s.peek() != '{' {
		return route{}, errors.New("offset 0: want a JSON object")
	}
	var p payload
	if err := s.object(p.top(s)); err != nil {
		return route{}, s.syntaxError(err)
	}
	if err := s.end(); err != nil {
		return route{}, s.syntaxError(err)
	}
	return p.route(event), nil
}

func (p *payload) route(event string) route {
	r := route{Installation: p.installation, Repo: p.fullName}
	if r.Repo == "" && p.ownerLogin != "" && p.name != "" {
		r.Repo = p.ownerLogin + "/" + p.name
	}
	var pr int64
	switch event {
	case "issue_comment":
		if p.issuePull {
			pr = p.issueNumber
		}
	case "pull_request":
		pr = p.number
		if pr == 0 {
			pr = p.pullNumber
		}
	case "workflow_run":
		if p.runPulls > 0 {
			pr = p.runPull
		} else if r.Repo != "" && p.headSHA != "" {
			r.Key = r.Repo + "@" + p.headSHA
		}
	}
	if pr > 0 {
		r.PR = int(pr)
		if r.Repo != "" {
			r.Key = r.Repo + "#" + strconv.FormatInt(pr, 10)
		}
	}
	return r
}

// is reports whether a member name is name, as encoding/json matches them.
func is(key []byte, name string) bool {
	return string(key) == name || bytes.EqualFold(key, []byte(name))
}

// top reads the members of the payload's object.
func (p *payload) top(s *scanner) func(key []byte) error {
	return func(key []byte) error {
		switch {
		case is(key, "number"):
			return s.integer(&p.number)
		case is(key, "installation"):
			return s.objectOrNull(func() { p.installation = 0 }, func(key []byte) error {
				if is(key, "id") {
					return s.integer(&p.installation)
				}
				return s.skip()
			})
		case is(key, "repository"):
			return s.objectOrNull(func() { p.fullName, p.name, p.ownerLogin = "", "", "" }, func(key []byte) error {
				switch {
				case is(key, "full_name"):
					return s.text(&p.fullName)
				case is(key, "name"):
					return s.text(&p.name)
				case is(key, "owner"):
					return s.objectOrNull(func() { p.ownerLogin = "" }, func(key []byte) error {
						if is(key, "login") {
							return s.text(&p.ownerLogin)
						}
						return s.skip()
					})
				}
				return s.skip()
			})
		case is(key, "issue"):
			return s.objectOrNull(func() { p.issueNumber, p.issuePull = 0, false }, func(key []byte) error {
				switch {
				case is(key, "number"):
					return s.integer(&p.issueNumber)
				case is(key, "pull_request"):
					p.issuePull = !s.null()
					if p.issuePull {
						return s.skip()
					}
					return nil
				}
				return s.skip()
			})
		case is(key, "pull_request"):
			return s.objectOrNull(func() { p.pullNumber = 0 }, func(key []byte) error {
				if is(key, "number") {
					return s.integer(&p.pullNumber)
				}
				return s.skip()
			})
		case is(key, "workflow_run"):
			return s.objectOrNull(func() { p.headSHA, p.runPulls, p.runPull, p.runPullKept = "", 0, 0, false }, p.workflowRun(s))
		}
		return s.skip()
	}
}

// workflowRun reads the members of workflow_run.
func (p *payload) workflowRun(s *scanner) func(key []byte) error {
	return func(key []byte) error {
		switch {
		case is(key, "head_sha"):
			return s.text(&p.headSHA)
		case is(key, "pull_requests"):
			if s.null() {
				p.runPulls, p.runPull, p.runPullKept = 0, 0, false
				return nil
			}
			// encoding/json decodes a repeated non-empty array into the
			// elements of the earlier one: a first element seen before
			// keeps its number unless this one sets it; an empty array
			// starts afresh.
			p.runPulls = 0
			defer func() {
				if p.runPulls == 0 {
					p.runPull, p.runPullKept = 0, false
				}
			}()
			return s.array(func(i int) error {
				p.runPulls = i + 1
				if i == 0 && !p.runPullKept {
					p.runPull, p.runPullKept = 0, true
				}
				if s.null() {
					return nil
				}
				var n int64
				if i == 0 {
					n = p.runPull
				}
				err := s.object(func(key []byte) error {
					if is(key, "number") {
						return s.integer(&n)
					}
					return s.skip()
				})
				if i == 0 {
					p.runPull = n
				}
				return err
			})
		}
		return s.skip()
	}
}
