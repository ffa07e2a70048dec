package ghfake

// Reactions to issue comments.

import (
	"net/http"
	"strings"
)

func (c *call) listReactions() {
	cm, ok := c.comment()
	if !ok {
		return
	}
	content := c.req.URL.Query().Get("content")
	var items []any
	for _, re := range cm.reactions {
		if content == "" || re.content == content {
			items = append(items, c.s.reactionJSON(re))
		}
	}
	c.json(http.StatusOK, c.paginate(items))
}

var reactionContents = map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true, "hooray": true, "rocket": true, "eyes": true}

func (c *call) createReaction() {
	cm, ok := c.comment()
	if !ok {
		return
	}
	var in struct {
		Content string `json:"content"`
	}
	if !c.decode(&in) {
		return
	}
	if !reactionContents[in.Content] {
		c.invalid("Validation Failed", obj{"resource": "Reaction", "field": "content", "code": "invalid"})
		return
	}
	for _, re := range cm.reactions {
		if strings.EqualFold(re.user, c.login) && re.content == in.Content {
			c.json(http.StatusOK, c.s.reactionJSON(re))
			return
		}
	}
	re := &reactionState{id: c.s.id(), user: c.login, content: in.Content, created: c.s.now()}
	cm.reactions = append(cm.reactions, re)
	c.json(http.StatusCreated, c.s.reactionJSON(re))
}
