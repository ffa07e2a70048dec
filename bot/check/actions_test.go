package check_test

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/check"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/google/go-cmp/cmp"
)

func TestPublishCarriesTheButtonsOfAnEscalation(t *testing.T) {
	t.Parallel()
	gh, sha := fixture(t)
	spec := check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "review", Conclusion: check.Failure,
		Title: "ESCALATE: round 3 of 3", Summary: "## report\n", Actions: check.EscalatedActions(), Now: now}
	res, err := publish(t, gh, jobToken, spec)
	if err != nil {
		t.Fatal(err)
	}
	want := []ghfake.CheckAction{
		{Identifier: "retry", Label: "Retry round", Description: "Grant one extra round, as /gc retry"},
		{Identifier: "approve", Label: "Approve", Description: "Approve the loop, as /gc approve"},
	}
	if diff := cmp.Diff(want, gh.CheckRuns(owner, repo)[0].Actions); diff != "" {
		t.Errorf("buttons after the create (-want +got):\n%s", diff)
	}
	// An update with the buttons keeps them, also through the batches
	// of annotations after it.
	spec.ID, spec.Annotations = res.ID, annotations(120)
	if res, err := publish(t, gh, jobToken, spec); err != nil || res.Requests != 3 {
		t.Fatalf("update with 120 annotations: %+v, %v; want an update and two batches", res, err)
	}
	if diff := cmp.Diff(want, gh.CheckRuns(owner, repo)[0].Actions); diff != "" {
		t.Errorf("buttons after an update with annotation batches (-want +got):\n%s", diff)
	}
	// An update without buttons (a loop approved after its escalation)
	// takes them off: go-github would omit the empty list, which keeps them.
	spec.Actions, spec.Annotations = nil, nil
	from := len(gh.Requests())
	if _, err := publish(t, gh, jobToken, spec); err != nil {
		t.Fatal(err)
	}
	if got := gh.CheckRuns(owner, repo)[0].Actions; len(got) != 0 {
		t.Errorf("buttons after an update without actions: %+v, want none", got)
	}
	if q := gh.Requests()[from]; q.Method != "PATCH" || !strings.Contains(string(q.Body), `"actions":[]`) {
		t.Errorf("update %s %s %s, want a PATCH with an empty actions list", q.Method, q.Path, q.Body)
	}
	// One that names them puts them back.
	spec.Actions = check.EscalatedActions()[:1]
	if _, err := publish(t, gh, jobToken, spec); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[:1], gh.CheckRuns(owner, repo)[0].Actions); diff != "" {
		t.Errorf("buttons after an update with one action (-want +got):\n%s", diff)
	}
	for _, q := range gh.Requests() {
		if q.Status >= 300 {
			t.Errorf("%s %s answered %d", q.Method, q.Path, q.Status)
		}
	}
}

func TestPublishRefusesButtonsGitHubWouldRefuse(t *testing.T) {
	t.Parallel()
	ok := check.Action{Identifier: "retry", Label: "Retry round", Description: "Grant one extra round"}
	tests := []struct {
		name    string
		actions []check.Action
		want    string
	}{
		{"four buttons", []check.Action{ok, ok, ok, ok}, "at most 3"},
		{"a label over 20 characters", []check.Action{{Identifier: "retry", Label: strings.Repeat("é", 21), Description: "d"}}, "label"},
		{"an identifier over 20 characters", []check.Action{{Identifier: strings.Repeat("r", 21), Label: "l", Description: "d"}}, "identifier"},
		{"a description over 40 characters", []check.Action{{Identifier: "r", Label: "l", Description: strings.Repeat("d", 41)}}, "description"},
		{"an empty label", []check.Action{{Identifier: "r", Description: "d"}}, "label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gh, sha := fixture(t)
			_, err := publish(t, gh, jobToken, check.Spec{Owner: owner, Repo: repo, SHA: sha, LoopID: "review", Conclusion: check.Failure,
				Title: "ESCALATE", Summary: "s", Actions: tt.actions, Now: now})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %q", err, tt.want)
			}
			if n := len(gh.Requests()); n != 0 {
				t.Errorf("%d requests, want none", n)
			}
		})
	}
}
