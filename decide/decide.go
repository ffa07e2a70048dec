package decide

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Config holds the knobs of one loop (DESIGN §2, §9).
type Config struct {
	MaxRounds int
	// Threshold is the review score at or above which a review converges.
	Threshold float64
	// Target is the coverage target in percent; nil means the layer's
	// default (L1 80, L2 60, L3 40, none 80).
	Target *float64
	Layer  string
	// Stall is the number of stuck rounds in a row that stop a loop early;
	// 0 disables stall detection.
	Stall int
	// AuditPartial is what audit_result means: "converge" (the default,
	// an advisory convergence) or "revise" (a revision round).
	AuditPartial string
}

// Defaults returns the default configuration of a loop.
func Defaults(l Loop) Config {
	c := Config{MaxRounds: 3, Threshold: 7, Stall: 2, AuditPartial: "converge"}
	if l == Critique {
		c.MaxRounds = 2
	}
	return c
}

// Validate checks a configuration's ranges.
func (c Config) Validate() error {
	switch {
	case c.MaxRounds < 1 || c.MaxRounds > 100:
		return fmt.Errorf("max-rounds %d out of range 1–100", c.MaxRounds)
	case c.Threshold < 1 || c.Threshold > 10 || math.IsNaN(c.Threshold):
		return fmt.Errorf("threshold %g out of range 1–10", c.Threshold)
	case c.Target != nil && (*c.Target < 0 || *c.Target > 100 || math.IsNaN(*c.Target)):
		return fmt.Errorf("target %g out of range 0–100", *c.Target)
	case c.Stall < 0 || c.Stall > 100:
		return fmt.Errorf("stall %d out of range 0–100", c.Stall)
	case c.AuditPartial != "converge" && c.AuditPartial != "revise":
		return fmt.Errorf("audit.partial %q: want converge or revise", c.AuditPartial)
	}
	if _, err := LayerTarget(c.Layer); err != nil {
		return err
	}
	return nil
}

// LayerTarget returns the default coverage target of a layer.
func LayerTarget(layer string) (float64, error) {
	switch strings.ToUpper(layer) {
	case "", "L1":
		return 80, nil
	case "L2":
		return 60, nil
	case "L3":
		return 40, nil
	}
	return 0, fmt.Errorf("layer %q: want L1, L2 or L3", layer)
}

// Input is everything one decision rests on.
type Input struct {
	Loop     Loop
	ID       string // loop id; empty means the loop name
	Evidence *Evidence
	Config   Config
	// Round is the round being decided, 1-based.
	Round int
	// History holds the loop's earlier rounds, oldest first.
	History []RoundRecord
	// Grants is the number of extra rounds granted by /gc retry.
	Grants int
	SHA    string
	Now    time.Time
}

// NoDecisionError means the evidence does not allow a decision (exit 1).
type NoDecisionError struct{ Msg string }

func (e *NoDecisionError) Error() string { return e.Msg }

func noDecision(format string, args ...any) error {
	return &NoDecisionError{Msg: fmt.Sprintf(format, args...)}
}

// Decide judges one round of a loop. It returns a *NoDecisionError when
// the evidence does not allow a decision.
func Decide(in Input) (*Decision, error) {
	if in.Evidence == nil {
		in.Evidence = &Evidence{}
	}
	if err := in.Config.Validate(); err != nil {
		return nil, err
	}
	if in.Round < 1 {
		return nil, fmt.Errorf("round %d: rounds start at 1", in.Round)
	}
	id := in.ID
	if id == "" {
		id = string(in.Loop)
	}
	d := &Decision{
		Loop: in.Loop, ID: id, Round: in.Round, MaxRounds: in.Config.MaxRounds + in.Grants,
		Status: StatusComplete, SHA: in.SHA, Time: in.Now, Layer: strings.ToUpper(in.Config.Layer),
		Tasks: []Task{}, Reasons: []string{}, Notes: append([]string{}, in.Evidence.Notes...),
	}
	inOrder := loopFindings(in.Evidence.Findings, in.Loop)
	d.Findings = sortedBySeverity(inOrder)
	d.Counts = CountFindings(d.Findings)
	d.Counts.Critical += in.Evidence.Omitted.Critical
	d.Counts.High += in.Evidence.Omitted.High
	d.Counts.Medium += in.Evidence.Omitted.Medium
	d.Counts.Low += in.Evidence.Omitted.Low
	if in.Grants > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("max_rounds %d raised to %d by %d granted round(s)", in.Config.MaxRounds, d.MaxRounds, in.Grants))
	}

	var err error
	switch in.Loop {
	case Review:
		err = decideReview(in, d)
	case Critique:
		decideCritique(in, d)
	case Audit:
		err = decideAudit(in, d)
	case Validation:
		err = decideValidation(in, d)
	case Coverage:
		err = decideCoverage(in, d)
	default:
		return nil, fmt.Errorf("unknown loop %q", in.Loop)
	}
	if err != nil {
		return nil, err
	}
	d.Fingerprints = fingerprints(d)
	var prev *RoundRecord
	if len(in.History) > 0 {
		prev = &in.History[len(in.History)-1]
	}
	var added []string
	d.Movement, d.Since, d.Fixed, added = track(prev, d.Round, d.Fingerprints)
	d.Returned = returned(in.History, added)
	checkStall(in, d)
	if d.Outcome == Fix {
		d.Tasks = buildTasks(d, inOrder)
	}
	d.NextSteps = NextSteps(d)
	d.History = append(append([]RoundRecord{}, in.History...), d.Record())
	return d, nil
}

// Record is the round record of a decision, for the state.
func (d *Decision) Record() RoundRecord {
	r := RoundRecord{
		N: d.Round, SHA: d.SHA, Time: d.Time, Decision: d.Outcome, Verdict: d.Verdict,
		Stalled: d.Stalled, Score: d.Score, Signal: d.Signal, Counts: d.Counts,
		Coverage: d.Coverage, PassRate: d.PassRate, Regressions: d.Regressions,
		Fingerprints: d.Fingerprints, Tasks: []string{}, Issues: []int{},
		FirstSeen: firstSeenList(d.Fingerprints, d.Since, d.Round),
	}
	m := d.Movement
	r.Movement = &m
	if r.Fingerprints == nil {
		r.Fingerprints = []string{}
	}
	for _, t := range d.Tasks {
		r.Tasks = append(r.Tasks, t.ID)
	}
	return r
}

// loopFindings keeps the findings that speak for loop l, in reading order.
func loopFindings(fs []Finding, l Loop) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		if f.Loop == "" || f.Loop == l {
			out = append(out, f)
		}
	}
	return out
}

// Fingerprint identifies a finding across rounds: the loop id, the file and
// the rule (or the normalized message), not the line.
func Fingerprint(id string, f Finding) string {
	key := f.Rule
	if key == "" {
		key = normalizeMessage(f.Message, true)
	}
	return hashKey(id, f.File, key)
}

// TestFingerprint identifies a failing test across rounds.
func TestFingerprint(id, test string) string { return hashKey(id, "test", test) }

func hashKey(parts ...string) string {
	var buf [256]byte // parts joined by NUL: on the stack when short
	b := buf[:0]
	for i, p := range parts {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, p...)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// fingerprints of the round's blocking findings and failing tests, sorted
// and unique.
func fingerprints(d *Decision) []string {
	set := make(map[string]bool)
	for _, f := range d.Findings {
		if f.Severity <= High {
			set[Fingerprint(d.ID, f)] = true
		}
	}
	for _, t := range d.Failures {
		set[TestFingerprint(d.ID, t.Name)] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// round2 rounds to two decimals, for figures computed from others.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

func ptr[T any](v T) *T { return &v }

// cite names the files a figure rests on.
func cite(files ...string) string {
	var keep []string
	for _, f := range files {
		if f != "" {
			keep = append(keep, f)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return " (" + strings.Join(keep, ", ") + ")"
}

// citeFindings renders up to three findings with their sources, for a
// reason line.
func citeFindings(fs []Finding) string {
	var parts []string
	for i, f := range fs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-3))
			break
		}
		s := f.String()
		if f.Source != "" {
			s += " (" + f.Source + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// sortedBySeverity returns a copy of fs ordered by severity, most severe
// first, findings of one severity in their order: a counting sort over the
// four severities (sort.SliceStable took 120 ms for 100 000 findings of
// mixed severities, moving 120-byte values by reflection). A severity out
// of range, which no reader makes, sorts by its value as before.
func sortedBySeverity(fs []Finding) []Finding {
	if len(fs) == 0 {
		return nil
	}
	var next [Low + 2]int // next[s+1] counts severity s, then next[s] is where s goes
	for _, f := range fs {
		if f.Severity < Critical || f.Severity > Low {
			out := slices.Clone(fs)
			slices.SortStableFunc(out, func(a, b Finding) int { return cmp.Compare(a.Severity, b.Severity) })
			return out
		}
		next[f.Severity+1]++
	}
	for s := Critical + 1; s <= Low; s++ {
		next[s] += next[s-1]
	}
	out := make([]Finding, len(fs))
	for _, f := range fs {
		out[next[f.Severity]] = f
		next[f.Severity]++
	}
	return out
}

// bySeverity returns the findings of the given severities.
func bySeverity(fs []Finding, sev ...Severity) []Finding {
	n := 0
	for _, f := range fs {
		if slices.Contains(sev, f.Severity) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Finding, 0, n) // counted first: a Finding is about 120 bytes
	for _, f := range fs {
		if slices.Contains(sev, f.Severity) {
			out = append(out, f)
		}
	}
	return out
}

func fmtNum(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
