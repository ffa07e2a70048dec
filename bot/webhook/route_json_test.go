package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// fields are the members routeOf reads, as encoding/json decodes them:
// the oracle of the scanner.
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
	WorkflowRun *runJSON `json:"workflow_run"`
	CheckRun    *runJSON `json:"check_run"`
	CheckSuite  *runJSON `json:"check_suite"`
	MergeGroup  *struct {
		HeadSHA string `json:"head_sha"`
	} `json:"merge_group"`
}

// runJSON is a run-like object: workflow_run, check_run, check_suite.
type runJSON struct {
	HeadSHA      string `json:"head_sha"`
	PullRequests []struct {
		Number int `json:"number"`
	} `json:"pull_requests"`
}

// runRouteJSON routes a run-like object as routeOf does.
func runRouteJSON(r *route, run *runJSON) {
	if run == nil {
		return
	}
	if len(run.PullRequests) > 0 {
		r.PR = run.PullRequests[0].Number
	} else if r.Repo != "" && run.HeadSHA != "" {
		r.Key = r.Repo + "@" + run.HeadSHA
	}
}

// routeOfJSON is routeOf through encoding/json.
func routeOfJSON(event string, payload []byte) (route, error) {
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
		if f.Issue != nil && isPullJSON(f.Issue.PullRequest) {
			r.PR = f.Issue.Number
		}
	case "pull_request":
		r.PR = f.Number
		if r.PR == 0 && f.PullRequest != nil {
			r.PR = f.PullRequest.Number
		}
	case "workflow_run":
		runRouteJSON(&r, f.WorkflowRun)
	case "check_run":
		runRouteJSON(&r, f.CheckRun)
	case "check_suite":
		runRouteJSON(&r, f.CheckSuite)
	case "merge_group":
		if f.MergeGroup != nil && r.Repo != "" && f.MergeGroup.HeadSHA != "" {
			r.Key = r.Repo + "@" + f.MergeGroup.HeadSHA
		}
	}
	if r.PR < 0 {
		r.PR = 0
	}
	if r.Repo != "" && r.PR > 0 {
		r.Key = r.Repo + "#" + strconv.Itoa(r.PR)
	}
	return r, nil
}

// isPullJSON reports whether an issue's pull_request member marks it as a pull
// request: present and not null.
func isPullJSON(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// FuzzRouteOf checks the one-pass scanner against encoding/json: the same
// payloads are refused, and the others route the same.
func FuzzRouteOf(f *testing.F) {
	for _, name := range []string{"issue_comment.created.json", "pull_request.closed.json", "workflow_run.completed.json", "ping.json", "installation.created.json",
		"check_run.requested_action.json", "check_suite.rerequested.json", "merge_group.checks_requested.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(0), b)
	}
	for _, s := range []string{
		`{"number":1,"repository":{"full_name":"o/r"}}`,
		`{"Number":1,"REPOSITORY":{"Full_Name":"o/r"}}`,
		`{"number":1,"repository":{"full_n\u0061me":"o/r"}}`,
		`{"number":1,"repository":{"owner":{"login":"o"},"name":"r"}}`,
		`{"number":1.5}`, `{"number":"1"}`, `{"number":1e3}`, `{"number":-0}`, `{"number":99999999999999999999}`,
		`{"issue":{"number":2,"pull_request":null},"repository":{"full_name":"o/r"}}`,
		`{"issue":{"number":2,"pull_request":false},"repository":{"full_name":"o/r"}}`,
		`{"workflow_run":{"pull_requests":[{"number":3}]},"workflow_run":{"pull_requests":[]},"workflow_run":{"pull_requests":[{}]},"repository":{"full_name":"o/r"}}`,
		`{"workflow_run":{"head_sha":"abc","pull_requests":[null]},"repository":{"full_name":"o/r"}}`,
		`{"check_run":{"head_sha":"abc","pull_requests":[]},"workflow_run":{"pull_requests":[{"number":3}]},"repository":{"full_name":"o/r"}}`,
		`{"check_suite":{"pull_requests":[{"number":4}]},"check_suite":null,"merge_group":{"head_sha":"def"},"repository":{"full_name":"o/r"}}`,
		`{"merge_group":{"head_sha":"def"},"merge_group":{},"repository":{"full_name":"o/r"}}`,
		`{"repository":{"full_name":"o/\xff"},"number":1}`,
		`{"repository":{"full_name":"o/r\ud800"},"number":1}`,
		`{"installation":{"id":1},"installation":null,"installation":{}}`,
		`{"repository":{"full_name":"o/r"},"repository":null,"number":1}`,
		`{"number":1} x`, `{"a":[1,2,{"b":[]}],"c":"\"\\\/\b\f\n\r\t\u00e9"}`, ` {"number" : 1 } `, `{"a":tru}`, `{"a":"` + "\x01" + `"}`,
	} {
		f.Add(uint8(1), []byte(s))
		f.Add(uint8(2), []byte(s))
	}
	events := []string{"issue_comment", "pull_request", "workflow_run", "ping", "check_run", "check_suite", "merge_group"}
	f.Fuzz(func(t *testing.T, ev uint8, body []byte) {
		event := events[int(ev)%len(events)]
		got, err := routeOf(event, body)
		want, werr := routeOfJSON(event, body)
		if (err == nil) != (werr == nil) {
			t.Fatalf("routeOf: %v; encoding/json: %v", err, werr)
		}
		if err == nil && got != want {
			t.Fatalf("routeOf = %+v, encoding/json = %+v", got, want)
		}
	})
}

func TestRouteOfAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	nest := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `,"number":4,"repository":{"full_name":"o/r"}}`)
	}
	tests := []struct {
		name  string
		event string
		body  []byte
		ok    bool
	}{
		{"nesting at encoding/json's limit", "pull_request", nest(maxDepth), true},
		{"nesting over encoding/json's limit", "pull_request", nest(maxDepth + 1), false},
		{"a number too large for an int", "pull_request", []byte(`{"number":9223372036854775808}`), false},
		{"the largest int", "pull_request", []byte(`{"number":9223372036854775807,"repository":{"full_name":"o/r"}}`), true},
		{"an escaped member name", "pull_request", []byte(`{"n\u0075mber":5,"repository":{"full_name":"o/r"}}`), true},
		{"a folded member name (Kelvin sign)", "pull_request", []byte(`{"number":5,"repository":{"\u212Aey":1,"full_name":"o/r"}}`), true},
		{"a truncated document", "pull_request", []byte(`{"number":5,"repository":{"full_name":"o/r"}`), false},
		{"two documents", "pull_request", []byte(`{"number":5}{}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := routeOf(tt.event, tt.body)
			want, werr := routeOfJSON(tt.event, tt.body)
			if (err == nil) != tt.ok || (werr == nil) != tt.ok {
				t.Fatalf("routeOf: %v; encoding/json: %v; want ok %v", err, werr, tt.ok)
			}
			if got != want {
				t.Errorf("routeOf = %+v, encoding/json = %+v", got, want)
			}
		})
	}
}
