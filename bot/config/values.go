package config

// Values are the loop settings one source gives — a section of the
// configuration file, the action's inputs or gcloop decide's flags — before
// precedence layers them (input or flag > file > default). A nil pointer or
// a nil list is "not given"; a non-nil empty list is given and empty. What
// each field means, its names and its limits are declared once, in the
// table of the Setting values (settings.go); the sources and Resolve read
// that table, never these fields one by one.
type Values struct {
	MaxRounds    *int
	Threshold    *float64
	Target       *float64
	Layer        *string
	Layers       map[string]float64
	Stall        *int
	AuditPartial *string
	WithoutData  *string
	Issues       *bool
	MaxIssues    *int
	Labels       []string
	Commit       *bool
	TestPatterns []string
	// ForbiddenMarkers are the markers a coverage round may not add.
	ForbiddenMarkers []string
	// Dispatch is a workflow file name; "" given as an input turns
	// dispatching off.
	Dispatch     *string
	Permission   *string
	MaxRetries   *int
	BotArtifacts []string
}

// Overrides are the settings given as action inputs or flags; they win
// over the file.
type Overrides = Values
