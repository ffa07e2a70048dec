package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// route is what the receiver reads of a delivery: where its work goes.
type route struct {
	Key          string // serialization key: "owner/name#pr", "owner/name@sha" or ""
	Repo         string // "owner/name", "" when the delivery names none
	PR           int    // the pull request, 0 when none
	Installation int64
}

// fields are the only parts of a payload the receiver decodes; the rest of
// the body is skipped by the decoder, not built into values.
type fields struct {
	Number       int `json:"number"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository *struct {
		FullName string `json:"full_name"`
		Name     string `json:"name"`
		Owner    *struct {
			Login string `json:"login"`
		} `json:"owner"`
	} `json:"repository"`
	Issue *struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	} `json:"issue"`
	PullRequest *struct {
		Number int `json:"number"`
	} `json:"pull_request"`
	WorkflowRun *struct {
		HeadSHA      string `json:"head_sha"`
		PullRequests []struct {
			Number int `json:"number"`
		} `json:"pull_requests"`
	} `json:"workflow_run"`
}

// routeOf reads the route of a delivery of event from its JSON payload; an
// error is a payload that is not one JSON object.
func routeOf(event string, payload []byte) (route, error) {
	if t := bytes.TrimLeft(payload, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return route{}, errors.New("want a JSON object")
	}
	var f fields
	if err := json.Unmarshal(payload, &f); err != nil {
		return route{}, err
	}
	var r route
	if f.Installation != nil {
		r.Installation = f.Installation.ID
	}
	if f.Repository != nil {
		r.Repo = f.Repository.FullName
		if r.Repo == "" && f.Repository.Owner != nil && f.Repository.Owner.Login != "" && f.Repository.Name != "" {
			r.Repo = f.Repository.Owner.Login + "/" + f.Repository.Name
		}
	}
	switch event {
	case "issue_comment":
		if f.Issue != nil && isPull(f.Issue.PullRequest) {
			r.PR = f.Issue.Number
		}
	case "pull_request":
		r.PR = f.Number
		if r.PR == 0 && f.PullRequest != nil {
			r.PR = f.PullRequest.Number
		}
	case "workflow_run":
		if f.WorkflowRun != nil {
			if len(f.WorkflowRun.PullRequests) > 0 {
				r.PR = f.WorkflowRun.PullRequests[0].Number
			} else if r.Repo != "" && f.WorkflowRun.HeadSHA != "" {
				r.Key = strings.ToLower(r.Repo) + "@" + f.WorkflowRun.HeadSHA
			}
		}
	}
	if r.PR < 0 {
		r.PR = 0
	}
	if r.Repo != "" && r.PR > 0 {
		// GitHub's names are case-insensitive: one pull request, one key.
		r.Key = strings.ToLower(r.Repo) + "#" + strconv.Itoa(r.PR)
	}
	return r, nil
}

// isPull reports whether an issue's pull_request member marks it as a pull
// request: present and not null.
func isPull(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}
