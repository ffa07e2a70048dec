package ghfake

// Issue and pull request comments.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

func (c *call) issue() (*issueState, bool) {
	n, ok := c.intParam("issue_number")
	if !ok {
		return nil, false
	}
	is, found := c.repo.issues[int(n)]
	if !found {
		c.notFound()
		return nil, false
	}
	return is, true
}

func (c *call) comment() (*commentState, bool) {
	id, ok := c.intParam("comment_id")
	if !ok {
		return nil, false
	}
	cm, found := c.repo.comments[id]
	if !found {
		c.notFound()
		return nil, false
	}
	return cm, true
}

func (c *call) sinceFilter() (time.Time, bool) {
	v := c.req.URL.Query().Get("since")
	if v == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		c.invalid("Validation Failed", obj{"resource": "Search", "field": "since", "code": "invalid"})
		return time.Time{}, false
	}
	return t, true
}

func (c *call) listComments() {
	is, ok := c.issue()
	if !ok {
		return
	}
	since, ok := c.sinceFilter()
	if !ok {
		return
	}
	var items []any
	for _, cm := range sortedComments(c.repo, is.number) {
		if !since.IsZero() && cm.updated.Before(since) {
			continue
		}
		items = append(items, c.s.commentJSON(c.repo, cm))
	}
	c.json(http.StatusOK, c.paginate(items))
}

// bodyText checks a comment or issue body: present when required, a
// string, and within GitHub's length limit.
func (c *call) bodyText(raw json.RawMessage, resource string, required bool) (string, bool) {
	if raw == nil || string(raw) == "null" {
		if required {
			c.invalid("Validation Failed", obj{"resource": resource, "field": "body", "code": "missing_field"})
			return "", false
		}
		return "", true
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		c.invalid("Invalid request.\n\nFor 'properties/body', "+string(raw)+" is not a string.", obj{"resource": resource, "field": "body", "code": "invalid"})
		return "", false
	}
	if utf8.RuneCountInString(text) > maxBody {
		c.invalid("Validation Failed", obj{"resource": resource, "field": "body", "code": "custom",
			"message": fmt.Sprintf("body is too long (maximum is %d characters)", maxBody)})
		return "", false
	}
	return text, true
}

// commentBody decodes a request {"body": ...} for an issue comment; on
// failure the error answer is already sent.
func (c *call) commentBody() (string, bool) {
	var in struct {
		Body json.RawMessage `json:"body"`
	}
	if !c.decode(&in) {
		return "", false
	}
	return c.bodyText(in.Body, "IssueComment", true)
}

func (c *call) createComment() {
	is, ok := c.issue()
	if !ok {
		return
	}
	text, ok := c.commentBody()
	if !ok {
		return
	}
	now := c.s.now()
	cm := &commentState{id: c.s.id(), issue: is.number, author: c.login, body: text, created: now, updated: now}
	c.repo.comments[cm.id] = cm
	is.comments++
	is.updated = now
	out := c.s.commentJSON(c.repo, cm)
	c.created(out["url"].(string), out)
}

func (c *call) getComment() {
	if cm, ok := c.comment(); ok {
		c.json(http.StatusOK, c.s.commentJSON(c.repo, cm))
	}
}

func (c *call) updateComment() {
	cm, ok := c.comment()
	if !ok {
		return
	}
	text, ok := c.commentBody()
	if !ok {
		return
	}
	cm.body = text
	cm.updated = c.s.now()
	c.json(http.StatusOK, c.s.commentJSON(c.repo, cm))
}

func (c *call) deleteComment() {
	cm, ok := c.comment()
	if !ok {
		return
	}
	delete(c.repo.comments, cm.id)
	if is := c.repo.issues[cm.issue]; is != nil {
		is.comments--
	}
	c.w.WriteHeader(http.StatusNoContent)
}
