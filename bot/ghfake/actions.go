package ghfake

// Actions: workflow runs, artifacts, dispatch and re-run.

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

func (c *call) run() (*runState, bool) { return byID(c, "run_id", c.repo.runs) }

func (c *call) getRun() {
	if run, ok := c.run(); ok {
		c.json(http.StatusOK, c.s.runJSON(c.repo, run))
	}
}

func (c *call) listArtifacts() {
	run, ok := c.run()
	if !ok {
		return
	}
	name := c.req.URL.Query().Get("name")
	var items []any
	for _, id := range run.artifacts {
		a := c.s.artifacts[id]
		if name != "" && a.name != name {
			continue
		}
		items = append(items, c.s.artifactJSON(c.repo, a))
	}
	total := len(items)
	page := c.paginate(items)
	c.json(http.StatusOK, obj{"total_count": total, "artifacts": page})
}

func (c *call) downloadArtifact() {
	id, ok := c.intParam("artifact_id")
	if !ok {
		return
	}
	a, found := c.s.artifacts[id]
	if !found || a.repo != strings.ToLower(c.repo.fullName()) || c.params["archive_format"] != "zip" {
		c.notFound()
		return
	}
	if a.expired {
		writeError(c.w, http.StatusGone, "Artifact has expired", docsURL)
		return
	}
	exp := c.s.now().Add(c.s.artifactTTL).Unix()
	loc := fmt.Sprintf("%s/artifacts/%d?sig=%s&se=%d&sp=r&sv=2021-12-02", c.s.blob.URL, a.id, a.token, exp)
	c.w.Header().Set("Location", loc)
	c.w.WriteHeader(http.StatusFound)
}

// knownRef reports whether ref (a branch or tag name, or refs/...) exists.
func (c *call) knownRef(ref string) bool {
	ref = strings.TrimPrefix(ref, "refs/")
	if _, ok := c.repo.refs[ref]; ok {
		return true
	}
	if _, ok := c.repo.refs["heads/"+ref]; ok {
		return true
	}
	if _, ok := c.repo.refs["tags/"+ref]; ok {
		return true
	}
	if _, ok := c.repo.files[ref]; ok {
		return true
	}
	if ref == c.repo.defaultBranch || ref == "heads/"+c.repo.defaultBranch {
		return true
	}
	for _, p := range c.repo.pulls {
		if p.spec.HeadRepoID == c.repo.id && (p.spec.HeadRef == ref || "heads/"+p.spec.HeadRef == ref) {
			return true
		}
	}
	return false
}

func (c *call) knownWorkflow(id, ref string) bool {
	for file, wid := range c.repo.workflows {
		if file == id || strconv.FormatInt(wid, 10) == id {
			return true
		}
	}
	path := ".github/workflows/" + id
	for _, r := range []string{ref, strings.TrimPrefix(ref, "refs/heads/"), c.repo.defaultBranch} {
		if _, ok := c.repo.files[r][path]; ok {
			return true
		}
		if _, ok := c.fileAt(r, path); ok {
			return true
		}
	}
	return false
}

func (c *call) dispatchWorkflow() {
	var in struct {
		Ref              string         `json:"ref"`
		Inputs           map[string]any `json:"inputs"`
		ReturnRunDetails bool           `json:"return_run_details"`
	}
	if !c.decode(&in) {
		return
	}
	wf := c.params["workflow_id"]
	if in.Ref == "" || !c.knownRef(in.Ref) {
		c.invalid("No ref found for: " + in.Ref)
		return
	}
	if !c.knownWorkflow(wf, in.Ref) {
		c.invalid("Workflow does not have 'workflow_dispatch' trigger")
		return
	}
	if len(in.Inputs) > 25 {
		c.invalid("you may only define up to 25 `inputs` for a `workflow_dispatch` event")
		return
	}
	c.repo.dispatches = append(c.repo.dispatches, Dispatch{Workflow: wf, Ref: in.Ref, Inputs: in.Inputs, By: c.login})
	if !in.ReturnRunDetails {
		c.w.WriteHeader(http.StatusNoContent)
		return
	}
	branch := strings.TrimPrefix(in.Ref, "refs/heads/")
	sha := c.repo.refs["heads/"+branch]
	id := c.s.id()
	c.repo.runs[id] = &runState{spec: RunSpec{ID: id, Name: wf, Path: ".github/workflows/" + wf, HeadSHA: sha,
		HeadBranch: branch, Event: "workflow_dispatch", Status: "queued", HeadRepoID: c.repo.id, HeadRepo: c.repo.fullName()},
		attempt: 1, created: c.s.now()}
	c.json(http.StatusOK, obj{"workflow_run_id": id, "run_url": c.s.repoAPI(c.repo) + "/actions/runs/" + strconv.FormatInt(id, 10),
		"html_url": repoHTML(c.repo.fullName()) + "/actions/runs/" + strconv.FormatInt(id, 10)})
}

func (c *call) rerun() {
	run, ok := c.run()
	if !ok {
		return
	}
	run.attempt++
	run.spec.Status, run.spec.Conclusion = "queued", ""
	c.repo.reruns = append(c.repo.reruns, run.spec.ID)
	c.json(http.StatusCreated, obj{})
}
