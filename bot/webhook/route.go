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
	run          runLike
	checkRun     runLike // check_run: a click on a button, a re-run
	checkSuite   runLike // check_suite: a re-run of the suite
	groupSHA     string  // merge_group.head_sha
}

// runLike holds the members of an object that names a head commit and
// the pull requests on it: workflow_run, check_run, check_suite.
type runLike struct {
	headSHA  string
	pulls    int   // len(pull_requests)
	pull     int64 // pull_requests[0].number
	pullKept bool  // a first element exists behind the slice's length
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
		pr = runRoute(&r, p.run)
	case "check_run":
		pr = runRoute(&r, p.checkRun)
	case "check_suite":
		pr = runRoute(&r, p.checkSuite)
	case "merge_group":
		// A merge queue's group is about several pull requests: it is
		// serialized on its commit, and takes no pull request's lock
		// (it only reads their reports and writes a check on the group).
		if r.Repo != "" && p.groupSHA != "" {
			r.Key = r.Repo + "@" + p.groupSHA
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

// runRoute is the pull request a run-like object names, or 0 and the key
// of its head commit ("owner/name@sha") when it names none (a fork's).
func runRoute(r *route, rl runLike) int64 {
	if rl.pulls > 0 {
		return rl.pull
	}
	if r.Repo != "" && rl.headSHA != "" {
		r.Key = r.Repo + "@" + rl.headSHA
	}
	return 0
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
			return s.objectOrNull(func() { p.run = runLike{} }, p.runObject(s, &p.run))
		case is(key, "check_run"):
			return s.objectOrNull(func() { p.checkRun = runLike{} }, p.runObject(s, &p.checkRun))
		case is(key, "check_suite"):
			return s.objectOrNull(func() { p.checkSuite = runLike{} }, p.runObject(s, &p.checkSuite))
		case is(key, "merge_group"):
			return s.objectOrNull(func() { p.groupSHA = "" }, func(key []byte) error {
				if is(key, "head_sha") {
					return s.text(&p.groupSHA)
				}
				return s.skip()
			})
		}
		return s.skip()
	}
}

// runObject reads the members of a run-like object into rl.
func (p *payload) runObject(s *scanner, rl *runLike) func(key []byte) error {
	return func(key []byte) error {
		switch {
		case is(key, "head_sha"):
			return s.text(&rl.headSHA)
		case is(key, "pull_requests"):
			if s.null() {
				rl.pulls, rl.pull, rl.pullKept = 0, 0, false
				return nil
			}
			// encoding/json decodes a repeated non-empty array into the
			// elements of the earlier one: a first element seen before
			// keeps its number unless this one sets it; an empty array
			// starts afresh.
			rl.pulls = 0
			defer func() {
				if rl.pulls == 0 {
					rl.pull, rl.pullKept = 0, false
				}
			}()
			return s.array(func(i int) error {
				rl.pulls = i + 1
				if i == 0 && !rl.pullKept {
					rl.pull, rl.pullKept = 0, true
				}
				if s.null() {
					return nil
				}
				var n int64
				if i == 0 {
					n = rl.pull
				}
				err := s.object(func(key []byte) error {
					if is(key, "number") {
						return s.integer(&n)
					}
					return s.skip()
				})
				if i == 0 {
					rl.pull = n
				}
				return err
			})
		}
		return s.skip()
	}
}
