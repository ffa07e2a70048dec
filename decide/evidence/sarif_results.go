// The results of a SARIF run: reading one, and filing it as a finding —
// at once, or held back until the run's rules are known.

package evidence

import (
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// sarifResult is what the reader takes from one result.
type sarifResult struct {
	ruleID        string
	ruleIndex     int
	ruleCompIndex int
	ruleRefIndex  int
	ruleRefID     string
	kind, level   string
	msg           sarifMessage
	uri, uriBase  string
	line          int
	suppressed    bool
	baseline      string
	score         sarifScore
}

// readResult reads one result. Only the first location is looked at.
func (sr *sarifReader) readResult() (sarifResult, error) {
	s := sr.sc
	res := sarifResult{ruleIndex: -1, ruleCompIndex: -1, ruleRefIndex: -1}
	err := s.Object("", "result", func(key []byte) error {
		var err error
		switch string(key) {
		case "ruleId":
			res.ruleID, err = s.StringVal("", "ruleId", sarifMaxField)
		case "ruleIndex":
			res.ruleIndex, _, err = s.IntVal("", "ruleIndex")
		case "rule":
			err = sr.readObject("rule", func(k []byte) error {
				var err error
				switch string(k) {
				case "id":
					res.ruleRefID, err = s.StringVal("rule.", "id", sarifMaxField)
				case "index":
					res.ruleRefIndex, _, err = s.IntVal("rule.", "index")
				case "toolComponent":
					err = sr.readObject("rule.toolComponent", func(k []byte) error {
						if string(k) != "index" {
							return s.Skip(6)
						}
						var err error
						res.ruleCompIndex, _, err = s.IntVal("rule.toolComponent.", "index")
						return err
					})
				default:
					err = s.Skip(5)
				}
				return err
			})
		case "kind":
			res.kind, err = s.StringVal("", "kind", 64)
		case "level":
			res.level, err = s.StringVal("", "level", 64)
		case "message":
			res.msg, err = sr.readMessage("message")
		case "locations":
			err = sr.readLocations(&res)
		case "suppressions":
			err = sr.readSuppressions(&res)
		case "baselineState":
			res.baseline, err = s.StringVal("", "baselineState", 64)
		case "properties":
			res.score, err = sr.readProperties()
		default:
			err = s.Skip(4)
		}
		return err
	})
	return res, err
}

const (
	sarifPhys     = "locations[0].physicalLocation"
	sarifArtifact = sarifPhys + ".artifactLocation"
	sarifRegion   = sarifPhys + ".region"
)

func (sr *sarifReader) readLocations(res *sarifResult) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	return s.Array("", "locations", func(i int) error {
		if i > 0 {
			return s.Skip(5)
		}
		return sr.readObject("locations[0]", func(k []byte) error {
			if string(k) != "physicalLocation" {
				return s.Skip(6)
			}
			return sr.readObject(sarifPhys, func(k []byte) error {
				switch string(k) {
				case "artifactLocation":
					return sr.readObject(sarifArtifact, func(k []byte) error {
						var err error
						switch string(k) {
						case "uri":
							res.uri, err = s.StringVal(sarifArtifact, ".uri", sarifMaxField)
						case "uriBaseId":
							res.uriBase, err = s.StringVal(sarifArtifact, ".uriBaseId", sarifMaxField)
						default:
							err = s.Skip(9)
						}
						return err
					})
				case "region":
					return sr.readObject(sarifRegion, func(k []byte) error {
						if string(k) != "startLine" {
							return s.Skip(9)
						}
						var err error
						res.line, _, err = s.IntVal(sarifRegion, ".startLine")
						return err
					})
				}
				return s.Skip(8)
			})
		})
	})
}

// readSuppressions notes whether any suppression has an absent or accepted
// status (underReview and rejected ones do not suppress).
func (sr *sarifReader) readSuppressions(res *sarifResult) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	return s.Array("", "suppressions", func(int) error {
		status := ""
		err := sr.readObject("suppressions[]", func(k []byte) error {
			if string(k) != "status" {
				return s.Skip(6)
			}
			var err error
			status, err = s.StringVal("suppressions[].", "status", 64)
			return err
		})
		if err != nil {
			return err
		}
		if status == "" || strings.EqualFold(status, "accepted") {
			res.suppressed = true
		}
		return nil
	})
}

// addResult files one result, read from off to end.
func (sr *sarifReader) addResult(run *sarifRun, res *sarifResult, off, end int64) error {
	kind := strings.ToLower(strings.TrimSpace(res.kind))
	if kind != "" && kind != "fail" {
		sr.notFail++ // pass, notApplicable, informational, review, open
		return nil
	}
	if strings.EqualFold(res.baseline, "absent") {
		sr.absent++
		return nil
	}
	if res.suppressed {
		sr.suppressed++
		return nil
	}
	level := ""
	if res.level != "" {
		lv, ok := sarifLevel(res.level)
		if !ok {
			return sr.sc.Errorf(off, "unknown level %q (want error, warning, note or none)", res.level)
		}
		level = lv
	}
	own, ok := res.score.severity()
	if !ok && res.score.bad != "" {
		sr.badScores++
	}
	ref := sarifRuleRef{comp: -1, index: res.ruleIndex, id: res.ruleID}
	if ref.id == "" {
		ref.id = res.ruleRefID
	}
	if res.ruleRefIndex >= 0 {
		ref.index = res.ruleRefIndex
	}
	if res.ruleCompIndex >= 0 {
		ref.comp = res.ruleCompIndex
	}
	if ref.index < -1 {
		ref.index = -1
	}
	f := decide.Finding{Rule: ref.id, RuleIsID: ref.id != "", Source: sr.name}
	f.File = sarifPath(res.uri, res.uriBase, run.bases)
	if res.line > 0 {
		f.Line = res.line
	}
	sr.seq++
	key := sarifGroupKey{ref: ref, level: level, score: own}
	if !run.toolSeen {
		return sr.holdBack(run, key, f, res.msg, end)
	}
	rule := run.lookup(ref, &sr.unknownRef)
	sev, isErr := sarifResolve(key, rule)
	f.Severity = sev
	sarifFillMessage(&f, res.msg, ref.comp, rule, run)
	sr.countError(run, ref.id, isErr, 1) // every error-level result, repeats too
	if sr.keep.duplicate(f) {
		return nil
	}
	if !sr.keep.wants(sev, sr.seq) {
		sr.keep.omitted.Add(sev)
		return nil
	}
	sr.keep.add(sr.seq, f)
	return nil
}

// holdBack keeps a result read before its run's tool until the run ends.
func (sr *sarifReader) holdBack(run *sarifRun, key sarifGroupKey, f decide.Finding, msg sarifMessage, end int64) error {
	if run.groups == nil {
		run.groups = map[sarifGroupKey]*sarifGroup{}
	}
	g := run.groups[key]
	if g == nil {
		if len(run.groups) >= sarifMaxGroups {
			return sr.sc.Errorf(end, "runs[%d]: more than %d distinct rules in results that come before the tool", run.idx, sarifMaxGroups)
		}
		g = &sarifGroup{}
		run.groups[key] = g
	}
	g.total++
	// Within a group all results end with one severity, so only its first
	// MaxFindings can ever be kept.
	if g.kept >= MaxFindings || len(run.pending) >= sarifMaxPending {
		if g.kept < MaxFindings {
			sr.overflow++
		}
		sr.uncompared++
		g.overflow++
		return nil
	}
	g.kept++
	run.pending = append(run.pending, sarifPending{key: key, seq: sr.seq, f: f, msg: msg})
	return nil
}

// sarifGroupKey groups held-back results that resolve alike.
type sarifGroupKey struct {
	ref   sarifRuleRef
	level string
	score decide.Severity
}

type sarifGroup struct {
	total, kept, overflow int
}

// sarifPending is a result read before its run's rules.
type sarifPending struct {
	key sarifGroupKey
	seq int
	f   decide.Finding
	msg sarifMessage
}

func (sr *sarifReader) finishRun(run *sarifRun) {
	var counted int // unknown rules are counted per group below
	for _, p := range run.pending {
		rule := run.lookup(p.key.ref, &counted)
		sev, _ := sarifResolve(p.key, rule)
		p.f.Severity = sev
		sarifFillMessage(&p.f, p.msg, p.key.ref.comp, rule, run)
		if p.f.File != "" && run.bases != nil {
			p.f.File = sarifRelBase(p.f.File, run.bases)
		}
		if sr.keep.duplicate(p.f) {
			continue
		}
		sr.keep.add(p.seq, p.f)
	}
	// Results past the held-back cap were never held, so they cannot be
	// compared: they are counted as they come (conservatively; noted).
	for key, g := range run.groups {
		missing := 0
		rule := run.lookup(key.ref, &missing)
		sr.unknownRef += missing * g.total
		sev, isErr := sarifResolve(key, rule)
		sr.countError(run, key.ref.id, isErr, g.total)
		for n := 0; n < g.overflow; n++ {
			sr.keep.omitted.Add(sev)
		}
	}
	if sarifIsTypeChecker(run.driver) {
		sr.ev.TypeErrors += run.errType + run.errOther
	} else {
		sr.ev.TypeErrors += run.errType
		sr.ev.LintErrors += run.errOther
	}
}
