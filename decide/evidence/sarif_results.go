// The results of a SARIF run: reading one, and filing it as a finding —
// at once, or held back until the run's rules are known.

package evidence

import (
	"encoding/binary"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
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

// Interning: the rule ids, kinds, levels, baseline states and file paths
// of results repeat, so each reader (the scanning goroutine, each worker)
// hands out one copy of them instead of allocating a string per result:
// the words SARIF defines from constants, other strings up to
// sarifMaxInternLen bytes from a direct-mapped cache of sarifInternSlots
// (a miss allocates and takes the slot), so memory stays bounded.
const (
	sarifInternBits   = 14
	sarifInternSlots  = 1 << sarifInternBits
	sarifMaxInternLen = 256
)

// intern returns string(b), a copy handed out before when there is one.
func (sr *sarifReader) intern(b []byte) string {
	switch string(b) { // no allocation: the compiler compares in place
	case "error":
		return "error"
	case "warning":
		return "warning"
	case "note":
		return "note"
	case "none":
		return "none"
	case "fail":
		return "fail"
	case "pass":
		return "pass"
	case "unchanged":
		return "unchanged"
	case "updated":
		return "updated"
	case "new":
		return "new"
	case "absent":
		return "absent"
	}
	if len(b) == 0 || len(b) > sarifMaxInternLen {
		return string(b)
	}
	if sr.interned == nil {
		sr.interned = make([]string, sarifInternSlots)
	}
	// The slot: a multiplicative hash of the length and the last eight
	// bytes (where rule ids and file names differ most).
	var tail uint64
	if len(b) >= 8 {
		tail = binary.BigEndian.Uint64(b[len(b)-8:]) // as the loop below reads it
	} else {
		for _, c := range b {
			tail = tail<<8 | uint64(c)
		}
	}
	h := (tail ^ uint64(len(b))<<56) * 0x9e3779b97f4a7c15 >> (64 - sarifInternBits)
	slot := &sr.interned[h]
	if *slot == string(b) {
		return *slot
	}
	*slot = string(b)
	return *slot
}

// readResult reads one result. Only the first location is looked at.
func (sr *sarifReader) readResult() (sarifResult, error) {
	s := sr.sc
	res := sarifResult{ruleIndex: -1, ruleCompIndex: -1, ruleRefIndex: -1}
	err := s.Object("", "result", func(key []byte) error {
		var err error
		switch string(key) {
		case "ruleId":
			res.ruleID, err = s.StringValOf("", "ruleId", sarifMaxField, sr.intern)
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
			res.kind, err = s.StringValOf("", "kind", 64, sr.intern)
		case "level":
			res.level, err = s.StringValOf("", "level", 64, sr.intern)
		case "message":
			res.msg, err = sr.readMessage("message")
		case "locations":
			err = sr.readLocations(&res)
		case "suppressions":
			err = sr.readSuppressions(&res)
		case "baselineState":
			res.baseline, err = s.StringValOf("", "baselineState", 64, sr.intern)
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
							res.uri, err = s.StringValOf(sarifArtifact, ".uri", sarifMaxField, sr.intern)
						case "uriBaseId":
							res.uriBase, err = s.StringValOf(sarifArtifact, ".uriBaseId", sarifMaxField, sr.intern)
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
	var p sarifPrepared
	sr.prepare(&p, run, res, off, nil)
	return sr.commit(run, &p, end)
}

// sarifSkip says why a result is ignored.
type sarifSkip uint8

const (
	sarifKept       sarifSkip = iota
	sarifNotFail              // a kind other than fail
	sarifAbsent               // baselineState absent
	sarifSuppressed           // a suppression
)

// sarifPrepared is a result made ready for filing: all that does not
// depend on the results before it. prepare makes it, on any goroutine;
// commit files it, in document order.
type sarifPrepared struct {
	skip     sarifSkip
	err      error // an unknown level
	badScore bool  // a security-severity that is not a number
	unknown  bool  // its rule is not listed
	held     bool  // read before the tool: held back (msg kept)
	isErr    bool  // effective level error
	hasFP    bool  // fp is its fingerprint
	borrowed bool  // f.Message and msg.text may be borrowed (borrowText)
	key      sarifGroupKey
	f        decide.Finding
	msg      sarifMessage
	fp       [2]uint64
}

// prepare makes res, read from off, ready for filing. It only reads sr's
// name and the run (whose rules and bases do not change while results are
// read), so any goroutine may call it. h, when not nil, computes the
// fingerprint for the dedupe.
func (sr *sarifReader) prepare(p *sarifPrepared, run *sarifRun, res *sarifResult, off int64, h *decide.DedupeHasher) {
	if kind := res.kind; kind != "" && kind != "fail" && sarifNotFailKind(kind) {
		p.skip = sarifNotFail // pass, notApplicable, informational, review, open
		return
	}
	if strings.EqualFold(res.baseline, "absent") {
		p.skip = sarifAbsent
		return
	}
	if res.suppressed {
		p.skip = sarifSuppressed
		return
	}
	level := ""
	if res.level != "" {
		lv, ok := res.level, true
		switch lv {
		case "error", "warning", "note", "none": // as sarifLevel reads them
		default:
			lv, ok = sarifLevel(lv)
		}
		if !ok {
			p.err = parse.OffsetError(sr.name, off, "unknown level %q (want error, warning, note or none)", res.level)
			return
		}
		level = lv
	}
	own, ok := res.score.severity()
	p.badScore = !ok && res.score.bad != ""
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
	p.f = decide.Finding{Rule: ref.id, RuleIsID: ref.id != "", Source: sr.name}
	p.borrowed = sr.texts != nil
	p.f.File = sarifPath(res.uri, res.uriBase, run.bases)
	if res.line > 0 {
		p.f.Line = res.line
	}
	p.key = sarifGroupKey{ref: ref, level: level, score: own}
	if !run.toolSeen {
		p.held, p.msg = true, res.msg
		return
	}
	missing := 0
	rule := run.lookup(ref, &missing)
	p.unknown = missing > 0
	p.f.Severity, p.isErr = sarifResolve(p.key, rule)
	sarifFillMessage(&p.f, res.msg, ref.comp, rule, run)
	if h != nil {
		p.fp, p.hasFP = h.Sum(p.f), true
	}
}

// sarifNotFailKind reports whether a result's kind, other than "" and
// "fail", is one other than fail once trimmed and lower-cased.
func sarifNotFailKind(kind string) bool {
	kind = strings.ToLower(strings.TrimSpace(kind))
	return kind != "" && kind != "fail"
}

// commit files a prepared result, read up to end: the counts, the dedupe
// and the ranking, which depend on the results before it.
func (sr *sarifReader) commit(run *sarifRun, p *sarifPrepared, end int64) error {
	switch p.skip {
	case sarifNotFail:
		sr.notFail++
		return nil
	case sarifAbsent:
		sr.absent++
		return nil
	case sarifSuppressed:
		sr.suppressed++
		return nil
	}
	if p.err != nil {
		return p.err
	}
	if p.badScore {
		sr.badScores++
	}
	sr.seq++
	if p.borrowed && (p.held || sr.keep.wants(p.f.Severity, sr.seq)) {
		// It may be kept: its strings must outlive the part's buffer.
		p.f.Message, p.msg.text = strings.Clone(p.f.Message), strings.Clone(p.msg.text)
		p.borrowed = false
	}
	if p.held {
		return sr.holdBack(run, p.key, p.f, p.msg, end)
	}
	if p.unknown {
		sr.unknownRef++
	}
	sr.countError(run, p.key.ref.id, p.isErr, 1) // every error-level result, repeats too
	if p.hasFP {
		if sr.keep.duplicateFP(p.fp) {
			return nil
		}
	} else if sr.keep.duplicate(p.f) {
		return nil
	}
	if !sr.keep.wants(p.f.Severity, sr.seq) {
		sr.keep.omitted.Add(p.f.Severity)
		return nil
	}
	sr.keep.add(sr.seq, p.f)
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
