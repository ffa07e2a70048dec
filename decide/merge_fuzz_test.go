package decide

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// byteGen hands out the bytes of a fuzz input, then zeros.
type byteGen struct{ b []byte }

func (g *byteGen) next() int {
	if len(g.b) == 0 {
		return 0
	}
	v := g.b[0]
	g.b = g.b[1:]
	return int(v)
}

// text takes a string of up to 15 bytes from the input.
func (g *byteGen) text() string {
	n := min(g.next()%16, len(g.b))
	s := string(g.b[:n])
	g.b = g.b[n:]
	return s
}

// sameMessage rewrites a message the way a second tool might report it:
// ASCII letters in the other case, spaces doubled, a trailing full stop.
func sameMessage(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z':
			r -= 'a' - 'A'
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		case r == ' ':
			b.WriteString(" \t")
		}
		b.WriteRune(r)
	}
	return b.String() + "."
}

// genEvidence builds 1–4 pieces of evidence from fuzz bytes: findings
// (some of them the same finding reworded), counts, scores and signals from
// small sets so that pieces agree or conflict, coverage and test results.
func genEvidence(data []byte) []*Evidence {
	g := &byteGen{b: data}
	files := []string{"a.go", "b.go", ""}
	messages := []string{"SQL injection", "nil dereference in Handler", "Complexity 25"}
	scores := []float64{6, 8}
	n := g.next()%4 + 1
	var out []*Evidence
	for i := range n {
		e := &Evidence{Sources: []string{fmt.Sprintf("piece%d.json", i)}}
		for range g.next() % 6 {
			f := Finding{Severity: Severity(g.next()%4 + 1), File: files[g.next()%len(files)], Line: g.next() % 4}
			switch k := g.next() % 4; k {
			case 3:
				f.Message = g.text()
			default:
				f.Message = messages[k]
			}
			if g.next()%2 == 1 {
				f.Message = sameMessage(f.Message)
			}
			// Two rule ids, which tell findings apart, and a dimension,
			// which does not.
			if r := g.next() % 4; r > 0 {
				f.Rule, f.RuleIsID = []string{"", "G101", "G104", "security"}[r], r < 3
			}
			e.Findings = append(e.Findings, f)
		}
		e.Omitted = Counts{Critical: g.next() % 3, High: g.next() % 3, Medium: g.next() % 3, Low: g.next() % 3}
		e.LintErrors, e.TypeErrors = g.next()%3, g.next()%3
		e.Analysis = g.next()%2 == 1
		switch g.next() % 4 {
		case 1:
			e.Review = &ReviewFacts{Score: f64(scores[g.next()%2])}
		case 2:
			e.Review = &ReviewFacts{Signal: []string{SignalConverged, SignalRevisionNeeded}[g.next()%2]}
		case 3:
			e.Audit = &AuditFacts{Score: f64(scores[g.next()%2]), Signal: []string{AuditPassed, AuditFixRequired}[g.next()%2]}
		}
		if g.next()%8 == 1 {
			e.Validation = &ValidationFacts{}
		}
		if g.next()%2 == 1 {
			c := &CoverageFacts{Format: "lcov"}
			for range g.next() % 3 {
				total := int64(g.next() % 10)
				c.Files = append(c.Files, FileCoverage{Path: files[g.next()%2], Covered: int64(g.next()) % (total + 1), Total: total})
			}
			for _, f := range c.Files {
				c.Covered += f.Covered
				c.Total += f.Total
			}
			e.Coverage = c
		}
		if g.next()%2 == 1 {
			e.Tests = &TestFacts{Passed: g.next() % 5, Failed: g.next() % 5, Skipped: g.next() % 5}
		}
		out = append(out, e)
	}
	return out
}

// distinctValues counts the different non-empty values among vals.
func distinctValues(vals []string) int {
	seen := map[string]bool{}
	for _, v := range vals {
		if v != "" {
			seen[v] = true
		}
	}
	return len(seen)
}

// FuzzMerge merges evidence built from fuzz bytes. Merge never panics, does
// not change its inputs and is deterministic; it fails exactly when two
// pieces state different scores or signals, or two give a validation
// report; otherwise sources, omitted counts and error counts add up, every
// finding is kept once (the same finding reworded counts once), and
// merging a piece a second time adds no finding.
func FuzzMerge(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 1, 0})
	f.Add([]byte("\x03\x05\x01\x01\x02\x00\x01\x02\x01\x02\x03\x05hello world\x01"))
	f.Add([]byte("\x01\x04\x02\x00\x01\x03\x0bSQL  Inject.\x00\x02\x01\x01\x03\x06Sql injection"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pieces := genEvidence(data)
		before := genEvidence(data)
		got, err := Merge(pieces...)
		if diff := cmp.Diff(before, pieces); diff != "" {
			t.Fatalf("Merge changed its inputs (-before +after):\n%s", diff)
		}
		again, err2 := Merge(genEvidence(data)...)
		if diff := cmp.Diff(got, again); diff != "" || (err == nil) != (err2 == nil) {
			t.Fatalf("two merges of the same evidence differ:\n%s", diff)
		}

		var reviewScores, reviewSignals, auditScores, auditSignals []string
		validations := 0
		for _, p := range pieces {
			if r := p.Review; r != nil {
				if r.Score != nil {
					reviewScores = append(reviewScores, fmt.Sprint(*r.Score))
				}
				reviewSignals = append(reviewSignals, r.Signal)
			}
			if a := p.Audit; a != nil {
				if a.Score != nil {
					auditScores = append(auditScores, fmt.Sprint(*a.Score))
				}
				auditSignals = append(auditSignals, a.Signal)
			}
			if p.Validation != nil {
				validations++
			}
		}
		conflict := distinctValues(reviewScores) > 1 || distinctValues(reviewSignals) > 1 ||
			distinctValues(auditScores) > 1 || distinctValues(auditSignals) > 1 || validations > 1
		if (err != nil) != conflict {
			t.Fatalf("err = %v, conflict = %v", err, conflict)
		}
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}

		var sources []string
		var omitted Counts
		var lint, types int
		keys := map[string]bool{}
		for _, p := range pieces {
			sources = append(sources, p.Sources...)
			omitted.Critical += p.Omitted.Critical
			omitted.High += p.Omitted.High
			omitted.Medium += p.Omitted.Medium
			omitted.Low += p.Omitted.Low
			lint += p.LintErrors
			types += p.TypeErrors
			for _, f := range p.Findings {
				keys[DedupeKey(f)] = true
			}
		}
		if diff := cmp.Diff(sources, got.Sources); diff != "" {
			t.Fatalf("sources (-want +got):\n%s", diff)
		}
		if got.Omitted != omitted || got.LintErrors != lint || got.TypeErrors != types {
			t.Fatalf("omitted %+v, lint %d, types %d; want %+v, %d, %d", got.Omitted, got.LintErrors, got.TypeErrors, omitted, lint, types)
		}
		if len(got.Findings) != len(keys) {
			t.Fatalf("%d findings kept, %d distinct ones given", len(got.Findings), len(keys))
		}
		for _, f := range got.Findings {
			if !keys[DedupeKey(f)] {
				t.Fatalf("finding %+v kept twice, or never given", f)
			}
			delete(keys, DedupeKey(f)) // a second finding with this key fails above next time
		}
		if len(keys) != 0 {
			t.Fatalf("findings lost: %v", keys)
		}
		for _, f := range got.Findings {
			reworded := f
			reworded.Message = sameMessage(f.Message)
			if DedupeKey(reworded) != DedupeKey(f) {
				t.Fatalf("%q and %q are not the same finding", f.Message, reworded.Message)
			}
		}
		if c := got.Coverage; c != nil && (c.Covered > c.Total || c.Covered < 0) {
			t.Fatalf("coverage %d of %d", c.Covered, c.Total)
		}

		// Merging one more copy of a piece (without its validation report,
		// which may come only once) adds no finding.
		last := genEvidence(data)
		dup := last[len(last)-1]
		dup.Validation = nil
		twice, err := Merge(append(genEvidence(data), dup)...)
		if err != nil {
			t.Fatalf("merging a piece twice: %v", err)
		}
		if diff := cmp.Diff(got.Findings, twice.Findings); diff != "" {
			t.Fatalf("a piece merged twice changed the findings (-once +twice):\n%s", diff)
		}
	})
}
