package imagetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// needs lists the jobs a job waits for.
func needs(job map[string]any) []string {
	switch n := job["needs"].(type) {
	case string:
		return []string{n}
	case []any:
		var out []string
		for _, e := range n {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

// after reports whether job id waits, directly or not, for job dep.
func after(jobs map[string]map[string]any, id, dep string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(j string) bool {
		if seen[j] {
			return false
		}
		seen[j] = true
		for _, n := range needs(jobs[j]) {
			if n == dep || walk(n) {
				return true
			}
		}
		return false
	}
	return walk(id)
}

// releaseProblems checks the release workflow: it publishes nothing before
// the tests pass, builds the image from the static binaries for both
// architectures, pins it in action.yml by tag and digest, and fails loudly.
func releaseProblems(w workflow) []string {
	var problems []string
	testJob := ""
	for id, job := range w.jobs {
		for _, s := range steps(job) {
			if strings.TrimSpace(str(s, "run")) == "bash .ci/run" {
				testJob = id
			}
		}
	}
	if testJob == "" {
		problems = append(problems, "no job runs bash .ci/run (the tests, the container tests included)")
	}
	var buildsImage, pins, movesMajor, buildsBinaries bool
	for id, job := range w.jobs {
		if _, ok := job["continue-on-error"]; ok {
			problems = append(problems, fmt.Sprintf("job %s: continue-on-error; a release step that fails must fail the release", id))
		}
		if id != testJob && testJob != "" && !after(w.jobs, id, testJob) {
			problems = append(problems, fmt.Sprintf("job %s does not wait for the tests (job %s)", id, testJob))
		}
		for _, s := range steps(job) {
			if _, ok := s["continue-on-error"]; ok {
				problems = append(problems, fmt.Sprintf("job %s step %q: continue-on-error; a release step that fails must fail the release", id, str(s, "name")))
			}
			run := str(s, "run")
			with, _ := s["with"].(map[string]any)
			switch {
			case strings.HasPrefix(str(s, "uses"), "docker/build-push-action@"):
				buildsImage = true
				if str(with, "file") != "dist/Dockerfile.release" || str(with, "context") != "dist" {
					problems = append(problems, fmt.Sprintf("job %s: the image is built from file %q context %q; want dist/Dockerfile.release in dist (the static binaries)", id, str(with, "file"), str(with, "context")))
				}
				if p := str(with, "platforms"); !strings.Contains(p, "linux/amd64") || !strings.Contains(p, "linux/arm64") {
					problems = append(problems, fmt.Sprintf("job %s: platforms %q; want linux/amd64 and linux/arm64", id, p))
				}
			case strings.Contains(run, "go build"):
				buildsBinaries = true
				if !strings.Contains(run, `-trimpath -ldflags "-s -w -X `+versionVar+`=${VERSION}"`) {
					problems = append(problems, fmt.Sprintf("job %s: the binaries are not built with the Dockerfile's flags", id))
				}
			case strings.Contains(run, "s|^  image: Dockerfile\\$|"):
				pins = strings.Contains(run, `docker://ghcr.io/${GITHUB_REPOSITORY,,}:${TAG}@${DIGEST}`)
			case strings.Contains(run, `refs/tags/$major`):
				movesMajor = true
			}
		}
	}
	for ok, what := range map[*bool]string{
		&buildsBinaries: "no go build of the static binaries",
		&buildsImage:    "no docker/build-push-action step",
		&pins:           "no step pins action.yml's image to docker://ghcr.io/<repo>:<tag>@<digest>",
		&movesMajor:     "no step moves the major tag",
	} {
		if !*ok {
			problems = append(problems, what)
		}
	}
	slices.Sort(problems)
	return problems
}

func TestReleasePublishesTheTestedImagePinnedByDigest(t *testing.T) {
	t.Parallel()
	for _, w := range loadWorkflows(t) {
		if w.file != ".github/workflows/release.yml" {
			continue
		}
		for _, p := range releaseProblems(w) {
			t.Errorf("%s: %s", w.file, p)
		}
		// The pinning step rewrites this exact line.
		if n := strings.Count(string(readRoot(t, "action.yml")), "\n  image: Dockerfile\n"); n != 1 {
			t.Errorf("action.yml has %d lines '  image: Dockerfile'; the release pins exactly one", n)
		}
		return
	}
	t.Fatal("no .github/workflows/release.yml")
}

func TestReleaseCheckFindsAnUntestedLooseRelease(t *testing.T) {
	t.Parallel()
	w := workflow{file: "r.yml", jobs: map[string]map[string]any{
		"image": {"steps": []any{map[string]any{"uses": "docker/build-push-action@v6",
			"with": map[string]any{"context": ".", "platforms": "linux/amd64"}}}},
		"release": {"needs": "image", "steps": []any{map[string]any{"name": "Move the major tag",
			"continue-on-error": true, "run": `git push --force origin "refs/tags/$major"`}}},
	}}
	got := strings.Join(releaseProblems(w), "\n")
	for _, want := range []string{
		"no job runs bash .ci/run",
		`job image: the image is built from file "" context "."`,
		`job image: platforms "linux/amd64"`,
		`job release step "Move the major tag": continue-on-error`,
		"no go build of the static binaries",
		"no step pins action.yml's image",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not say %q:\n%s", want, got)
		}
	}
}
