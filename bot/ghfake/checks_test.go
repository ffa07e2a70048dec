package ghfake_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
)

func TestCheckRunsListAnnotationsAndCombinedStatus(t *testing.T) {
	t.Parallel()
	s, c := world(t)
	ctx := context.Background()
	sha := s.AddCommit(owner, repo, "main", map[string][]byte{"a.go": []byte("package a\n")})
	ann := func(line int) *github.CheckRunAnnotation {
		return &github.CheckRunAnnotation{Path: github.String("a.go"), StartLine: github.Int(line), EndLine: github.Int(line),
			AnnotationLevel: github.String("warning"), Message: github.String("m")}
	}
	out := &github.CheckRunOutput{Title: github.String("t"), Summary: github.String("s"), Annotations: []*github.CheckRunAnnotation{ann(1)}}
	run, _, err := c.Checks.CreateCheckRun(ctx, owner, repo, github.CreateCheckRunOptions{Name: "gcloop / review", HeadSHA: sha,
		Status: github.String("completed"), Conclusion: github.String("failure"), Output: out})
	if err != nil {
		t.Fatal(err)
	}
	out.Annotations = []*github.CheckRunAnnotation{ann(2)}
	if _, _, err := c.Checks.UpdateCheckRun(ctx, owner, repo, run.GetID(), github.UpdateCheckRunOptions{Name: "gcloop / review", Output: out}); err != nil {
		t.Fatal(err)
	}
	anns, _, err := c.Checks.ListCheckRunAnnotations(ctx, owner, repo, run.GetID(), nil)
	if err != nil || len(anns) != 2 || anns[1].GetStartLine() != 2 {
		t.Fatalf("annotations %v, %v: want both batches", anns, err)
	}
	list, _, err := c.Checks.ListCheckRunsForRef(ctx, owner, repo, "main", &github.ListCheckRunsOptions{CheckName: github.String("gcloop / review")})
	if err != nil || list.GetTotal() != 1 || list.CheckRuns[0].GetConclusion() != "failure" {
		t.Fatalf("list %+v, %v", list, err)
	}
	if _, _, err := c.Checks.CreateCheckRun(ctx, owner, repo, github.CreateCheckRunOptions{Name: "x", HeadSHA: sha, Status: github.String("completed")}); errStatus(err) != http.StatusUnprocessableEntity {
		t.Errorf("completed without a conclusion: %v, want 422", err)
	}

	for _, st := range []string{"success", "failure"} {
		if _, _, err := c.Repositories.CreateStatus(ctx, owner, repo, sha, &github.RepoStatus{State: github.String(st), Context: github.String("ctx-" + st)}); err != nil {
			t.Fatal(err)
		}
	}
	comb, _, err := c.Repositories.GetCombinedStatus(ctx, owner, repo, sha, nil)
	if err != nil || comb.GetState() != "failure" || comb.GetTotalCount() != 2 {
		t.Fatalf("combined %+v, %v: want failure of 2", comb, err)
	}
}

func TestCheckRunsNeedAnAppToken(t *testing.T) {
	t.Parallel()
	s, _ := world(t)
	s.AddToken("ghp_person", "person", false)
	sha := s.AddCommit(owner, repo, "main", map[string][]byte{"a.go": []byte("package a\n")})
	_, _, err := s.Client("ghp_person").Checks.CreateCheckRun(context.Background(), owner, repo, github.CreateCheckRunOptions{Name: "n", HeadSHA: sha})
	if errStatus(err) != http.StatusForbidden {
		t.Errorf("a personal token: %v, want 403", err)
	}
	s.Forbid(bot, "checks")
	_, _, err = s.Client(token).Checks.CreateCheckRun(context.Background(), owner, repo, github.CreateCheckRunOptions{Name: "n", HeadSHA: sha})
	if errStatus(err) != http.StatusForbidden {
		t.Errorf("a job without checks: write: %v, want 403", err)
	}
}
