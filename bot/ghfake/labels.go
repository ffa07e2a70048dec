package ghfake

// Labels of a repository and of an issue.

import (
	"encoding/json"
	"net/http"
	"strings"
)

func (c *call) listLabels() {
	items := make([]any, len(c.repo.labels))
	for i, l := range c.repo.labels {
		items[i] = labelJSON(c.s, c.repo, l)
	}
	c.json(http.StatusOK, c.paginate(items))
}

func (c *call) createLabel() {
	var in struct {
		Name        string `json:"name"`
		Color       string `json:"color"`
		Description string `json:"description"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Name == "" {
		c.invalid("Validation Failed", obj{"resource": "Label", "field": "name", "code": "missing_field"})
		return
	}
	if findLabel(c.repo, in.Name) != nil {
		c.invalid("Validation Failed", obj{"resource": "Label", "field": "name", "code": "already_exists"})
		return
	}
	color := strings.TrimPrefix(in.Color, "#")
	if color == "" {
		color = "ededed"
	}
	l := &labelState{id: c.s.id(), name: in.Name, color: color, descr: in.Description}
	c.repo.labels = append(c.repo.labels, l)
	out := labelJSON(c.s, c.repo, l)
	c.created(out["url"].(string), out)
}

func (c *call) getLabel() {
	l := findLabel(c.repo, c.params["name"])
	if l == nil {
		c.notFound()
		return
	}
	c.json(http.StatusOK, labelJSON(c.s, c.repo, l))
}

func (c *call) addLabels() {
	is, ok := c.issue()
	if !ok {
		return
	}
	var raw []json.RawMessage
	var wrapped struct {
		Labels []json.RawMessage `json:"labels"`
	}
	if json.Unmarshal(c.body, &raw) != nil {
		if !c.decode(&wrapped) {
			return
		}
		raw = wrapped.Labels
	}
	names, ok := labelNames(raw)
	if !ok {
		c.invalid("Validation Failed", obj{"resource": "Label", "field": "name", "code": "invalid"})
		return
	}
	for _, n := range names {
		is.labels = appendUnique(is.labels, c.s.ensureLabel(c.repo, n).name)
	}
	is.updated = c.s.now()
	items := []any{}
	for _, n := range is.labels {
		items = append(items, labelJSON(c.s, c.repo, findLabel(c.repo, n)))
	}
	c.json(http.StatusOK, items)
}
