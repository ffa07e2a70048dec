package decide

import (
	"fmt"
	"slices"
	"sort"
)

// buildTasks creates the follow-up tasks of a fix round (DESIGN §2.1,
// §2.3, §2.4). Critique and coverage rounds create none: the generator's
// next round is the fix. findings are in reading order.
func buildTasks(d *Decision, findings []Finding) []Task {
	switch d.Loop {
	case Review:
		return reviewTasks(d, findings)
	case Audit:
		return auditTasks(d, findings)
	case Validation:
		return validationTasks(d, findings)
	}
	return []Task{}
}

// reviewTasks makes one FIX-<next>-<k> task per target file from the
// critical and high findings, files in order of first appearance, findings
// without a file in one task after them.
func reviewTasks(d *Decision, findings []Finding) []Task {
	next := d.Round + 1
	var tasks []Task
	index := make(map[string]int)
	var nofile []string
	var nofileFps []string
	for _, f := range bySeverity(findings, Critical, High) {
		if f.File == "" {
			nofile = append(nofile, f.String())
			nofileFps = append(nofileFps, Fingerprint(d.ID, f))
			continue
		}
		i, ok := index[f.File]
		if !ok {
			i = len(tasks)
			index[f.File] = i
			tasks = append(tasks, Task{
				Type: "fix", Iteration: next, Title: "Fix " + f.File,
				TargetFiles: []string{f.File},
				Acceptance:  fmt.Sprintf("review round %d reports no critical or high finding in %s", next, f.File),
			})
		}
		tasks[i].Findings = append(tasks[i].Findings, f.String())
		tasks[i].Fingerprints = append(tasks[i].Fingerprints, Fingerprint(d.ID, f))
	}
	if len(nofile) > 0 {
		tasks = append(tasks, Task{
			Type: "fix", Iteration: next, Title: "Fix findings without a file",
			TargetFiles: []string{}, Findings: nofile, Fingerprints: nofileFps,
			Acceptance: fmt.Sprintf("review round %d no longer reports these findings", next),
		})
	}
	for i := range tasks {
		tasks[i].ID = fmt.Sprintf("FIX-%d-%d", next, i+1)
		tasks[i].DependsOn = []string{}
		tasks[i].Fingerprints = sortedSet(tasks[i].Fingerprints)
	}
	if tasks == nil {
		// REVISION_NEEDED with a low score but no blocking finding: one task
		// to raise the score.
		tasks = []Task{{ID: fmt.Sprintf("FIX-%d-1", next), Type: "fix", Iteration: next,
			Title: "Raise the review score", TargetFiles: []string{}, Findings: findingStrings(findings),
			Acceptance: fmt.Sprintf("review round %d scores at or above the threshold", next), DependsOn: []string{}}}
	}
	return tasks
}

// auditTasks makes the DESIGN-fix-<n> + AUDIT-re-<n> pair.
func auditTasks(d *Decision, findings []Finding) []Task {
	n := d.Round
	address := bySeverity(findings, Critical, High)
	if len(address) == 0 {
		address = findings
	}
	fix := Task{ID: fmt.Sprintf("DESIGN-fix-%d", n), Type: "fix", Iteration: n,
		Title: fmt.Sprintf("Address audit findings of round %d", n), TargetFiles: targetFiles(address),
		Findings: findingStrings(address), Acceptance: "every listed finding is resolved in the artifacts", DependsOn: []string{},
		Fingerprints: trackedOf(d.ID, address, nil)}
	re := Task{ID: fmt.Sprintf("AUDIT-re-%d", n), Type: "audit", Iteration: n,
		Title: fmt.Sprintf("Re-audit after revision %d", n), TargetFiles: fix.TargetFiles, Findings: []string{},
		Acceptance: "the audit signals audit_passed (or audit_result) with no critical finding", DependsOn: []string{fix.ID}}
	return []Task{fix, re}
}

// validationTasks makes the TDFIX-fix-<n> + TDVAL-recheck-<n> pair.
func validationTasks(d *Decision, findings []Finding) []Task {
	n := d.Round
	var items []string
	var files []string
	for _, t := range d.Failures {
		items = append(items, fmt.Sprintf("test %s failed: %s", t.Name, t.Message))
		if t.File != "" {
			files = append(files, t.File)
		}
	}
	blocking := bySeverity(findings, Critical, High)
	items = append(items, findingStrings(blocking)...)
	files = uniq(append(files, targetFiles(blocking)...))
	for _, c := range d.Checks {
		if c.Name != "quality" && c.Failed > 0 {
			items = append(items, fmt.Sprintf("check %s: %d failure(s)", c.Name, c.Failed))
		}
	}
	if files == nil {
		files = []string{}
	}
	if items == nil {
		items = []string{"the validation report could not be read: re-run the validation"}
	}
	fix := Task{ID: fmt.Sprintf("TDFIX-fix-%d", n), Type: "fix", Iteration: n,
		Title: fmt.Sprintf("Fix the regressions of round %d", n), TargetFiles: files, Findings: items,
		Acceptance: "tests, type check and lint report no regression", DependsOn: []string{},
		Fingerprints: trackedOf(d.ID, blocking, d.Failures)}
	re := Task{ID: fmt.Sprintf("TDVAL-recheck-%d", n), Type: "validate", Iteration: n,
		Title: fmt.Sprintf("Re-validate after fix %d", n), TargetFiles: files, Findings: []string{},
		Acceptance: "validation-report.json shows 0 regressions", DependsOn: []string{fix.ID}}
	return []Task{fix, re}
}

// trackedOf are the sorted fingerprints of the blocking findings among fs
// and of the failing tests: those the round's Fingerprints track.
func trackedOf(id string, fs []Finding, tests []TestCase) []string {
	var out []string
	for _, f := range fs {
		if f.Severity == Critical || f.Severity == High {
			out = append(out, Fingerprint(id, f))
		}
	}
	for _, t := range tests {
		out = append(out, TestFingerprint(id, t.Name))
	}
	return sortedSet(out)
}

// sortedSet sorts ss and drops repeats, in place.
func sortedSet(ss []string) []string {
	sort.Strings(ss)
	return slices.Compact(ss)
}

func findingStrings(fs []Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

func targetFiles(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		if f.File != "" {
			out = append(out, f.File)
		}
	}
	return uniq(out)
}

func uniq(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// NextSteps are the ways on after a decision: the commands after an
// escalation, the tasks after a fix round. A caller that changes a
// decision's outcome sets them again from this.
func NextSteps(d *Decision) []string {
	switch {
	case d.Outcome == Escalate && d.Loop == Audit:
		return []string{
			"`/gc approve` — force-approve the audit as it stands",
			"manual fix — push the fixes yourself, then `/gc retry` for one more audit round",
			"`/gc abort` — stop the loop",
		}
	case d.Outcome == Escalate:
		return []string{
			"`/gc retry` — grant one more round",
			"`/gc approve` — force-approve and converge",
			"`/gc abort` — stop the loop",
		}
	case d.Outcome == Fix && len(d.Tasks) > 0:
		steps := []string{}
		for _, t := range d.Tasks {
			steps = append(steps, fmt.Sprintf("%s: %s", t.ID, t.Title))
		}
		return append(steps, fmt.Sprintf("round %d runs on the next push (or `/gc retry`)", d.Round+1))
	case d.Outcome == Fix:
		return []string{fmt.Sprintf("the generator revises; round %d runs on the next push (or `/gc retry`)", d.Round+1)}
	case d.Forced || d.Stalled:
		return []string{"the loop stopped without meeting its goal: read the warnings before merging"}
	}
	return []string{"none: the loop converged"}
}
