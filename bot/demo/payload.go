package demo

import (
	"encoding/json"
	"fmt"

	"github.com/gcloop/gcloop/bot/ghfake"
)

// Delivery is one webhook delivery as GitHub sends it.
type Delivery struct {
	Event string // X-GitHub-Event
	ID    string // X-GitHub-Delivery
	Body  []byte // the JSON payload
}

type obj = map[string]any

func repository(name string, id int64) obj {
	return obj{"id": id, "name": name, "full_name": Org + "/" + name, "html_url": "https://github.com/" + Org + "/" + name,
		"default_branch": "main", "owner": obj{"login": Org, "type": "Organization"}}
}

func (w *World) repoID(name string) int64 {
	if name == API {
		return 502
	}
	return 501
}

// CriticRun adds a completed critic run on the pull request's head whose
// artifact holds one evidence file, and returns its workflow_run
// delivery: what GitHub sends when the critic's workflow completes.
func (w *World) CriticRun(p *Pull, artifact, file string, evidence []byte) (Delivery, error) {
	head := p.Head()
	id := w.repoID(p.Repo)
	runID := w.GH.AddWorkflowRun(Org, p.Repo, ghfake.RunSpec{Name: p.loop, Path: ".github/workflows/" + p.loop + ".yml",
		HeadSHA: head, HeadBranch: p.Branch, PullRequests: []int{p.Number}})
	archive, err := ghfake.ZipFiles(map[string][]byte{file: evidence})
	if err != nil {
		return Delivery{}, err
	}
	w.GH.AddArtifact(Org, p.Repo, runID, artifact, archive)
	side := obj{"ref": p.Branch, "sha": head, "repo": obj{"id": id, "name": p.Repo}}
	return encode("workflow_run", obj{
		"action": "completed",
		"workflow_run": obj{
			"id": runID, "name": p.loop, "head_branch": p.Branch, "head_sha": head, "run_attempt": 1,
			"event": "pull_request", "status": "completed", "conclusion": "success",
			"pull_requests": []any{obj{"number": p.Number, "head": side, "base": obj{"ref": "main", "repo": obj{"id": id, "name": p.Repo}}}},
			"repository":    repository(p.Repo, id), "head_repository": repository(p.Repo, id),
		},
		"repository": repository(p.Repo, id), "installation": obj{"id": Install},
		"sender": obj{"login": Developer, "type": "User"},
	})
}

// Comment adds author's comment to the pull request and returns its
// issue_comment delivery.
func (w *World) Comment(p *Pull, author, body string) (Delivery, error) {
	id := w.GH.AddComment(Org, p.Repo, p.Number, author, body)
	user := obj{"login": author, "type": "User"}
	return encode("issue_comment", obj{
		"action": "created",
		"issue": obj{"number": p.Number, "title": p.Title, "user": obj{"login": Developer, "type": "User"},
			"pull_request": obj{"url": fmt.Sprintf("https://api.github.com/repos/%s/%s/pulls/%d", Org, p.Repo, p.Number)}},
		"comment":      obj{"id": id, "body": body, "user": user, "author_association": "MEMBER"},
		"repository":   repository(p.Repo, w.repoID(p.Repo)),
		"installation": obj{"id": Install},
		"sender":       user,
	})
}

func encode(event string, payload obj) (Delivery, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return Delivery{}, fmt.Errorf("encode the %s payload: %w", event, err)
	}
	return Delivery{Event: event, ID: newID(), Body: body}, nil
}
