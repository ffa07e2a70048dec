// Package config reads gcloop's repository configuration, the file
// .github/gcloop.yml (read from the base branch), and resolves the settings
// of one loop with the precedence action input (or flag) > file > defaults.
//
// Each setting is declared once, in the table that All returns: its
// names (the file's key, the action's input, gcloop decide's flag), its
// type, default, limits and help. The file parser, the action's inputs,
// the flags and Resolve all read that table.
//
// # File format
//
// The top-level keys are loop ids; each holds the section of one loop. The
// id is what the action's `id` input, the report comment's state marker and
// the `/gc` commands name (`/gc retry cov-api`); it is a lowercase letter
// or digit, then up to 31 lowercase letters, digits, '_' or '-'. A section's `loop:` key
// names the loop kind — review, critique, audit, validation or coverage —
// and may be left out when the id is itself a kind name. A section named
// after a kind cannot be another kind.
//
//	review:                      # id "review", kind review
//	  max_rounds: 4              # 1–100; at round >= max_rounds no fix round starts
//	  threshold: 8               # review only: score (1–10) at which a review converges
//	  stall: 2                   # stuck rounds in a row that stop the loop; 0 disables
//	  issues: true               # open one fix issue per task (default true)
//	  labels: [needs-fix]        # extra labels for fix issues, beside gcloop and gcloop:<loop>
//	  dispatch: review.yml       # workflow to dispatch for the next round
//	  commands:
//	    permission: write        # least permission for /gc commands: write, maintain or admin
//	    max_retries: 2           # /gc retry grants per PR, 0–20
//	design-audit:                # any id, with the kind named
//	  loop: audit
//	  audit:
//	    partial: revise          # audit only: audit_result means converge (default) or revise
//	critique:
//	  without_data: success      # critique only: the check when no critique data was read: neutral (default) or success
//	coverage:
//	  layers: {L1: 85, L2: 70}   # coverage only: per-layer targets (defaults 80/60/40)
//	  commit: true               # coverage only: push accepted test-only changes (default true)
//	  test_patterns: ["*_test.go", "testdata/**"]    # coverage only: files a round may change
//	  forbidden_markers: [t.Skip, "@Disabled"]       # coverage only: markers a round may not add
//	coverage-web:
//	  loop: coverage
//	  target: 70                 # coverage only: one target percent for every layer, 0–100
//
// Keys common to every kind: loop, max_rounds, stall, issues, labels,
// dispatch, commands (permission, max_retries). Kind-specific keys:
// threshold (review); audit.partial (audit); without_data (critique); target, layers, commit,
// test_patterns, forbidden_markers (coverage). A key of another kind is an
// error, so is an unknown key (with a suggestion for a likely typo), a value
// of the wrong type or out of range; every error names the file, the line
// and the key. Further rules:
//
//   - An empty section (`critique:` alone) selects the defaults. An empty
//     file, or one holding only comments, configures nothing.
//   - `target` and `layers` exclude each other: target applies to every
//     layer, layers to each one. A run without a layer uses the L1 target.
//   - `test_patterns` and `forbidden_markers` replace the built-in lists;
//     an empty list (`[]`) allows no file at all, or disables the marker
//     check. Patterns use the guard's glob syntax ("**" spans directories).
//   - `dispatch` is a workflow file name ending in .yml or .yaml; a path
//     `.github/workflows/<name>` is read as the bare name.
//   - Booleans are true or false (not yes/no/on/off); list items are plain
//     scalars written as in the file.
//   - Anchors, aliases and more than one YAML document are refused; the file
//     is capped at 1 MiB.
package config

import (
	"slices"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// MaxFileSize caps the configuration file.
const MaxFileSize = 1 << 20

// File is a parsed configuration file.
type File struct {
	// Name is the file's display name, used in errors.
	Name string
	// Loops holds the sections by loop id.
	Loops map[string]*Section
}

// Section is the configuration of one loop id: its Values are the keys
// the file gives (Layer is never one of them).
type Section struct {
	ID   string
	Loop decide.Loop
	// Line is the line of the section's id in the file.
	Line int
	Values
}

// Section returns the section of a loop id, or nil when the file has none.
// It is safe on a nil File.
func (f *File) Section(id string) *Section {
	if f == nil {
		return nil
	}
	return f.Loops[id]
}

// Sections returns the file's sections in the order of their ids. It is
// safe on a nil File.
func (f *File) Sections() []*Section {
	if f == nil {
		return nil
	}
	out := make([]*Section, 0, len(f.Loops))
	for _, s := range f.Loops {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Section) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Apply layers the section's decision knobs over c: max_rounds, threshold,
// target, stall and audit.partial when set, and the `layers` target of
// c.Layer (L1 when c.Layer is empty) when c.Target is still nil. It is safe
// on a nil Section.
func (s *Section) Apply(c *decide.Config) {
	if s == nil {
		return
	}
	set := Settings{Config: *c}
	set.layer(&s.Values, true)
	set.Config.Target = layerTarget(set.Config, s.Layers)
	*c = set.Config
}
