package ghfake

// Issues: list, create, get, update.

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"
)

func (c *call) listIssues() {
	q := c.req.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	since, ok := c.sinceFilter()
	if !ok {
		return
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	creator := q.Get("creator")
	var list []*issueState
	for _, is := range c.repo.issues {
		if state != "all" && is.state != state {
			continue
		}
		if creator != "" && !strings.EqualFold(is.author, creator) {
			continue
		}
		if !since.IsZero() && is.updated.Before(since) {
			continue
		}
		if !hasLabels(is.labels, want) {
			continue
		}
		list = append(list, is)
	}
	sortKey := q.Get("sort")
	asc := q.Get("direction") == "asc"
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		var less bool
		switch sortKey {
		case "updated":
			less = a.updated.Before(b.updated) || (a.updated.Equal(b.updated) && a.number < b.number)
		case "comments":
			less = a.comments < b.comments || (a.comments == b.comments && a.number < b.number)
		default:
			less = a.number < b.number
		}
		if asc {
			return less
		}
		return !less
	})
	items := make([]any, len(list))
	for i, is := range list {
		items[i] = c.s.issueJSON(c.repo, is)
	}
	c.json(http.StatusOK, c.paginate(items))
}

func hasLabels(have, want []string) bool {
	for _, w := range want {
		w = strings.TrimSpace(w)
		found := false
		for _, h := range have {
			if strings.EqualFold(h, w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// labelNames reads labels given as strings or {name} objects.
func labelNames(raw []json.RawMessage) ([]string, bool) {
	var out []string
	for _, r := range raw {
		var name string
		if err := json.Unmarshal(r, &name); err == nil {
			out = append(out, name)
			continue
		}
		var o struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(r, &o); err != nil || o.Name == "" {
			return nil, false
		}
		out = append(out, o.Name)
	}
	return out, true
}

type issueInput struct {
	Title       json.RawMessage   `json:"title"`
	Body        json.RawMessage   `json:"body"`
	State       *string           `json:"state"`
	StateReason *string           `json:"state_reason"`
	Labels      []json.RawMessage `json:"labels"`
}

func rawTitle(raw json.RawMessage) (string, bool) {
	if raw == nil || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

func (c *call) createIssue() {
	var in issueInput
	if !c.decode(&in) {
		return
	}
	title, ok := rawTitle(in.Title)
	if !ok || title == "" {
		c.invalid("Validation Failed", obj{"resource": "Issue", "field": "title", "code": "missing_field"})
		return
	}
	body, ok := c.bodyText(in.Body, "Issue", false)
	if !ok {
		return
	}
	labels, ok := labelNames(in.Labels)
	if !ok {
		c.invalid("Validation Failed", obj{"resource": "Issue", "field": "labels", "code": "invalid"})
		return
	}
	now := c.s.now()
	is := &issueState{id: c.s.id(), number: c.repo.nextNumber(), title: title, body: body, state: "open",
		author: c.login, created: now, updated: now, authorAssociation: c.s.association(c.repo, c.login)}
	for _, l := range labels {
		is.labels = appendUnique(is.labels, c.s.ensureLabel(c.repo, l).name)
	}
	c.repo.issues[is.number] = is
	out := c.s.issueJSON(c.repo, is)
	c.created(out["url"].(string), out)
}

func (c *call) getIssue() {
	if is, ok := c.issue(); ok {
		c.json(http.StatusOK, c.s.issueJSON(c.repo, is))
	}
}

func (c *call) updateIssue() {
	is, ok := c.issue()
	if !ok {
		return
	}
	var in issueInput
	if !c.decode(&in) {
		return
	}
	if in.Title != nil && string(in.Title) != "null" {
		title, ok := rawTitle(in.Title)
		if !ok {
			c.invalid("Validation Failed", obj{"resource": "Issue", "field": "title", "code": "invalid"})
			return
		}
		is.title = title
	}
	if in.Body != nil {
		body, ok := c.bodyText(in.Body, "Issue", false)
		if !ok {
			return
		}
		is.body = body
	}
	now := c.s.now()
	if in.State != nil {
		switch *in.State {
		case "closed":
			if is.state != "closed" {
				is.closed, is.closedBy = now, c.login
			}
			is.state, is.reason = "closed", "completed"
			if in.StateReason != nil && *in.StateReason != "" {
				is.reason = *in.StateReason
			}
		case "open":
			if is.state == "closed" {
				is.reason = "reopened"
			}
			is.state, is.closed, is.closedBy = "open", time.Time{}, ""
		default:
			c.invalid("Validation Failed", obj{"resource": "Issue", "field": "state", "code": "invalid"})
			return
		}
	}
	if in.Labels != nil {
		labels, ok := labelNames(in.Labels)
		if !ok {
			c.invalid("Validation Failed", obj{"resource": "Issue", "field": "labels", "code": "invalid"})
			return
		}
		is.labels = nil
		for _, l := range labels {
			is.labels = appendUnique(is.labels, c.s.ensureLabel(c.repo, l).name)
		}
	}
	is.updated = now
	c.json(http.StatusOK, c.s.issueJSON(c.repo, is))
}
