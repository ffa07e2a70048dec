package check

import (
	"fmt"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"
)

// Limits GitHub sets on a check run's requested actions (its buttons).
const (
	// MaxActions is the most buttons a check run may carry.
	MaxActions = 3
	// maxActionLabel, maxActionIdentifier and maxActionDescription are the
	// most characters of a button's label, identifier and description.
	maxActionLabel       = 20
	maxActionIdentifier  = 20
	maxActionDescription = 40
)

// Identifiers of gcloop's buttons: a check_run requested_action webhook
// names one, and it is carried out as the /gc command of the same verb.
const (
	ActionRetry   = "retry"
	ActionApprove = "approve"
)

// Action is a button on a check run; a click sends the App a check_run
// webhook with action requested_action and the button's Identifier.
type Action struct {
	Identifier  string // at most 20 characters
	Label       string // at most 20 characters
	Description string // at most 40 characters
}

// EscalatedActions are the buttons of an escalated loop's check run:
// "Retry round" and "Approve", carried out exactly as /gc retry and
// /gc approve by someone allowed to run them.
func EscalatedActions() []Action {
	return []Action{
		{Identifier: ActionRetry, Label: "Retry round", Description: "Grant one extra round, as /gc retry"},
		{Identifier: ActionApprove, Label: "Approve", Description: "Approve the loop, as /gc approve"},
	}
}

// validateActions checks the buttons against GitHub's limits, so that a
// bad one is a clear error rather than a 422.
func validateActions(actions []Action) error {
	if len(actions) > MaxActions {
		return fmt.Errorf("check run: %d actions, GitHub takes at most %d", len(actions), MaxActions)
	}
	for _, a := range actions {
		for _, f := range []struct {
			name, value string
			max         int
		}{{"identifier", a.Identifier, maxActionIdentifier}, {"label", a.Label, maxActionLabel}, {"description", a.Description, maxActionDescription}} {
			if n := utf8.RuneCountInString(f.value); n == 0 || n > f.max {
				return fmt.Errorf("check run: action %s %q: want 1 to %d characters", f.name, f.value, f.max)
			}
		}
	}
	return nil
}

// updatedActions are the buttons of an update that sets the whole run:
// an empty, non-nil list when there are none, so that Service takes off
// the buttons an earlier round put there.
func updatedActions(actions []Action) []*github.CheckRunAction {
	if len(actions) == 0 {
		return []*github.CheckRunAction{}
	}
	return githubActions(actions)
}

// githubActions converts the buttons for go-github; nil for none.
func githubActions(actions []Action) []*github.CheckRunAction {
	if len(actions) == 0 {
		return nil
	}
	out := make([]*github.CheckRunAction, len(actions))
	for i, a := range actions {
		out[i] = &github.CheckRunAction{Identifier: a.Identifier, Label: a.Label, Description: a.Description}
	}
	return out
}
