package ghfake

// CheckAction is a requested action (a button) of a check run, as a
// create or update request sets it. GitHub's request description bounds
// them (at most 3; label and identifier ≤ 20 characters, description
// ≤ 40), and the fake refuses what breaks those bounds with the
// description's validation. An update without `actions` keeps the
// buttons the run has; one with a list replaces them.
type CheckAction struct {
	Label       string `json:"label"`
	Description string `json:"description"`
	Identifier  string `json:"identifier"`
}

// checkActionsInput is the `actions` member of a create or update
// request; nil when the request has none.
type checkActionsInput struct {
	Actions *[]CheckAction `json:"actions"`
}

// applyCheckActions sets the buttons of a create or update request.
func applyCheckActions(cr *checkRunState, in *checkRunInput) {
	if in.Actions != nil {
		cr.actions = append([]CheckAction{}, (*in.Actions)...)
	}
}
