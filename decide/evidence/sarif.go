package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
)

// MaxFindings is the most findings ReadSARIF and ReadCheckstyle keep from
// one file. Beyond it the most severe are kept (the earlier of equally
// severe ones) and the rest are counted in Evidence.Omitted, so memory does
// not grow with the size of the log.
const MaxFindings = 5000

// Limits of the SARIF reader.
const (
	// sarifBufSize is the read buffer; no token needs to fit in it whole.
	sarifBufSize = 64 << 10
	// sarifMaxMessage caps a finding's message.
	sarifMaxMessage = 4 << 10
	// sarifMaxField caps file paths, rule ids, tool names and other strings.
	sarifMaxField = 1 << 10
	// sarifMaxDesc caps the rule description kept for messages given by id.
	sarifMaxDesc = 512
	// sarifMaxRules caps the rules kept per run; later ones are ignored.
	sarifMaxRules = 50000
	// sarifMaxPending caps the results held back per run when results come
	// before the tool's rules (their severity is not known yet).
	sarifMaxPending = 4 * MaxFindings
	// sarifMaxGroups caps the distinct (rule, level) groups of held-back
	// results per run.
	sarifMaxGroups = 1 << 16
	// sarifMaxArgs caps the arguments kept of one message.
	sarifMaxArgs = 32
	// sarifMaxStrings caps the bytes of message strings (rules'
	// messageStrings, components' globalMessageStrings) kept per run;
	// later ones are not kept, and a message naming them falls back to
	// the rule's description.
	sarifMaxStrings = 4 << 20
)

// ReadSARIF reads a SARIF 2.1.0 log (CodeQL, gosec, semgrep, ESLint's SARIF
// formatter, staticcheck, ...) into findings. The log is streamed through a
// fixed buffer: runs, rules and results are read one at a time, values the
// reader does not need are skipped without being held, and at most
// MaxFindings findings are kept (the most severe; the rest are counted in
// Evidence.Omitted).
//
// Severity follows DESIGN §3.6: a security-severity property (the result's
// own, else its rule's) maps ≥ 9 critical, ≥ 7 high, ≥ 4 medium, else low;
// otherwise the level (the result's, else the rule's
// defaultConfiguration.level, else warning) maps error → high, warning →
// medium, note/none → low. Results with a suppression whose status is
// absent or accepted are ignored, as are results of a kind other than fail
// (pass, notApplicable, informational, review, open: no failure) and results
// whose baselineState is absent (fixed since the baseline). A message given
// by id is the rule's messageStrings entry of that id, else the tool
// component's globalMessageStrings entry, with its {0}, {1}… placeholders
// filled from the message's arguments. Results of effective level error count as TypeErrors when the
// tool is a type checker (or the rule is "typecheck") and as LintErrors
// otherwise.
func ReadSARIF(name string, r io.Reader) (*decide.Evidence, error) {
	sr := &sarifReader{
		name: name,
		sc:   jsonscan.New(name, r, sarifBufSize),
		keep: keeper{},
		ev:   &decide.Evidence{Sources: []string{name}, Analysis: true},
	}
	if err := sr.readLog(); err != nil {
		return nil, err
	}
	return sr.finish(), nil
}

// sarifReader holds the state of one ReadSARIF call.
type sarifReader struct {
	name string
	sc   *jsonscan.Scanner
	keep keeper
	ev   *decide.Evidence
	seq  int // results read, for document order

	sawVersion bool
	sawRuns    bool
	runs       int

	suppressed   int // results ignored for a suppression
	absent       int // results ignored for baselineState absent
	notFail      int // results ignored for a kind other than fail
	extraStrings int // message strings past sarifMaxStrings
	badScores    int // security-severity values that are not numbers
	unknownRef   int // results whose rule could not be found
	overflow     int // results held back past sarifMaxPending
	uncompared   int // results before the tool not held, so not deduplicated
	extraRules   int // rules past sarifMaxRules
}

// readLog reads the top-level object.
func (sr *sarifReader) readLog() error {
	s := sr.sc
	if err := s.BeginDoc("SARIF log"); err != nil {
		return err
	}
	err := s.Object("", "", func(key []byte) error {
		switch string(key) {
		case "version":
			c, err := s.Next()
			if err != nil {
				return err
			}
			at := s.Off()
			if c != '"' {
				return s.Errorf(at, "version: expected the string \"2.1.0\", found %s", jsonscan.Kind(c))
			}
			v, err := s.StringVal("", "version", 64)
			if err != nil {
				return err
			}
			if v != "2.1.0" {
				return s.Errorf(at, "SARIF version %q is not supported, expected 2.1.0", v)
			}
			sr.sawVersion = true
			return nil
		case "runs":
			c, err := s.Next()
			if err != nil {
				return err
			}
			if c == 'n' {
				return s.Errorf(s.Off(), "runs is null: the tool did not produce any run")
			}
			sr.sawRuns = true
			return s.Array("", "runs", func(int) error { return sr.readRun() })
		}
		return s.Skip(1)
	})
	if err != nil {
		return err
	}
	if !sr.sawRuns {
		return s.Errorf(s.Off(), "not a SARIF log: the object has no \"runs\" array")
	}
	return s.EndDoc("SARIF log")
}

func (sr *sarifReader) readRun() error {
	s := sr.sc
	what := fmt.Sprintf("runs[%d]", sr.runs)
	run := &sarifRun{idx: sr.runs, comps: map[int][]sarifRule{}, byID: map[string]*sarifRule{}}
	sr.runs++
	err := s.Object(what, "", func(key []byte) error {
		switch string(key) {
		case "tool":
			return sr.readTool(run, what+".tool")
		case "results":
			return sr.readResults(run, what+".results")
		case "originalUriBaseIds":
			return sr.readBases(run, what+".originalUriBaseIds")
		}
		return s.Skip(2)
	})
	if err != nil {
		return err
	}
	sr.finishRun(run)
	return nil
}

// readBases reads originalUriBaseIds: name → {uri, uriBaseId}. Only bases
// given as absolute file: URIs are kept, to make absolute paths relative.
func (sr *sarifReader) readBases(run *sarifRun, what string) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	return s.Object(what, "", func(key []byte) error {
		name := string(key)
		var uri, parent string
		err := s.Object(what+".", name, func(k []byte) error {
			var err error
			switch string(k) {
			case "uri":
				uri, err = s.StringVal(what, ".uri", sarifMaxField)
			case "uriBaseId":
				parent, err = s.StringVal(what, ".uriBaseId", sarifMaxField)
			default:
				err = s.Skip(4)
			}
			return err
		})
		if err != nil {
			return err
		}
		if p, ok := sarifFileURIPath(uri); ok && parent == "" && len(run.bases) < 64 {
			if !strings.HasSuffix(p, "/") {
				p += "/"
			}
			if run.bases == nil {
				run.bases = map[string]string{}
			}
			run.bases[name] = p
		}
		return nil
	})
}

// readTool reads tool.driver and tool.extensions with their rules.
func (sr *sarifReader) readTool(run *sarifRun, what string) error {
	s := sr.sc
	err := s.Object(what, "", func(key []byte) error {
		switch string(key) {
		case "driver":
			return sr.readComponent(run, -1, what+".driver")
		case "extensions":
			return s.Array(what, ".extensions", func(i int) error {
				return sr.readComponent(run, i, fmt.Sprintf("%s.extensions[%d]", what, i))
			})
		}
		return s.Skip(3)
	})
	if err != nil {
		return err
	}
	run.toolSeen = true
	return nil
}

// readComponent reads a toolComponent: its name and its rules.
func (sr *sarifReader) readComponent(run *sarifRun, comp int, what string) error {
	s := sr.sc
	return s.Object(what, "", func(key []byte) error {
		var err error
		switch {
		case string(key) == "name" && comp == -1:
			run.driver, err = s.StringVal(what, ".name", sarifMaxField)
		case string(key) == "rules":
			err = sr.readRules(run, comp, what+".rules")
		case string(key) == "globalMessageStrings":
			var m map[string]string
			if m, err = sr.readMessageStrings(run, what+".globalMessageStrings"); err == nil && m != nil {
				if run.global == nil {
					run.global = map[int]map[string]string{}
				}
				run.global[comp] = m
			}
		default:
			err = s.Skip(4)
		}
		return err
	})
}

func (sr *sarifReader) readRules(run *sarifRun, comp int, what string) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	list := run.comps[comp]
	err := s.Array(what, "", func(i int) error {
		if run.rules >= sarifMaxRules {
			sr.extraRules++
			return s.Skip(5)
		}
		rule, err := sr.readRule(run)
		if err != nil {
			return sarifPrefix(err, fmt.Sprintf("%s[%d]", what, i))
		}
		list = append(list, rule)
		run.rules++
		return nil
	})
	if err != nil {
		return err
	}
	run.comps[comp] = list
	// Index by id once the slice stops growing; the first rule of an id wins.
	for i := range list {
		if id := list[i].id; id != "" {
			if _, dup := run.byID[id]; !dup {
				run.byID[id] = &list[i]
			}
		}
	}
	return nil
}

// sarifPrefix puts the path of the value being read in front of a
// ParseError's message ("runs[0].results[7]: level: ...").
func sarifPrefix(err error, path string) error {
	var pe *decide.ParseError
	if errors.As(err, &pe) && pe.Err == nil && !strings.HasPrefix(pe.Msg, "invalid JSON") && !strings.HasPrefix(pe.Msg, "unexpected end") {
		pe.Msg = path + ": " + pe.Msg
	}
	return err
}

// readRule reads one reportingDescriptor.
func (sr *sarifReader) readRule(run *sarifRun) (sarifRule, error) {
	s := sr.sc
	var rule sarifRule
	var short, full, name string
	err := s.Object("", "rule", func(key []byte) error {
		var err error
		switch string(key) {
		case "id":
			rule.id, err = s.StringVal("", "id", sarifMaxField)
		case "name":
			name, err = s.StringVal("", "name", sarifMaxDesc)
		case "shortDescription":
			short, err = sr.readText("shortDescription")
		case "fullDescription":
			full, err = sr.readText("fullDescription")
		case "messageStrings":
			rule.msgs, err = sr.readMessageStrings(run, "messageStrings")
		case "defaultConfiguration":
			err = sr.readObject("defaultConfiguration", func(k []byte) error {
				if string(k) != "level" {
					return s.Skip(7)
				}
				at := s.Off()
				lv, err := s.StringVal("defaultConfiguration.", "level", 64)
				if err != nil || lv == "" {
					return err
				}
				var known bool
				if rule.level, known = sarifLevel(lv); !known {
					return s.Errorf(at, "unknown defaultConfiguration.level %q (want error, warning, note or none)", lv)
				}
				return nil
			})
		case "properties":
			var sc sarifScore
			if sc, err = sr.readProperties(); err == nil {
				if sev, ok := sc.severity(); ok {
					rule.score, rule.hasScore = sev, true
				} else if sc.bad != "" {
					sr.badScores++
				}
			}
		default:
			err = s.Skip(6)
		}
		return err
	})
	if err != nil {
		return rule, err
	}
	switch {
	case short != "":
		rule.desc = jsonscan.Cap(short, sarifMaxDesc)
	case full != "":
		rule.desc = jsonscan.Cap(full, sarifMaxDesc)
	default:
		rule.desc = name
	}
	return rule, nil
}

// readObject reads an object (or null), calling member for each key (valid
// only during the call); member must consume the value.
func (sr *sarifReader) readObject(field string, member func(key []byte) error) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	return s.Object("", field, member)
}

// sarifMessage is what the reader keeps of a message object.
type sarifMessage struct {
	text string   // text, else markdown
	id   string   // the id of a message string, when given by id
	args []string // arguments for the placeholders (at most sarifMaxArgs)
}

// readMessage reads a message or multiformatMessageString: its text (else
// markdown), id and arguments.
func (sr *sarifReader) readMessage(field string) (sarifMessage, error) {
	s := sr.sc
	var m sarifMessage
	var md string
	err := sr.readObject(field, func(k []byte) error {
		var err error
		switch string(k) {
		case "text":
			m.text, err = s.StringVal(field, ".text", sarifMaxMessage)
		case "markdown":
			md, err = s.StringVal(field, ".markdown", sarifMaxMessage)
		case "id":
			m.id, err = s.StringVal(field, ".id", sarifMaxField)
		case "arguments":
			if null, err := s.Null(); null || err != nil {
				return err
			}
			err = s.Array(field, ".arguments", func(i int) error {
				a, err := s.StringVal(field, fmt.Sprintf(".arguments[%d]", i), sarifMaxField)
				if err == nil && len(m.args) < sarifMaxArgs {
					m.args = append(m.args, a)
				}
				return err
			})
		default:
			err = s.Skip(8)
		}
		return err
	})
	if m.text = strings.TrimSpace(m.text); m.text == "" {
		m.text = strings.TrimSpace(md)
	}
	return m, err
}

// readText reads a multiformatMessageString for its text (else markdown).
func (sr *sarifReader) readText(field string) (string, error) {
	m, err := sr.readMessage(field)
	return m.text, err
}

// readMessageStrings reads a map of id → multiformatMessageString. What is
// kept counts against the run's sarifMaxStrings budget.
func (sr *sarifReader) readMessageStrings(run *sarifRun, field string) (map[string]string, error) {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return nil, err
	}
	var out map[string]string
	err := s.Object("", field, func(key []byte) error {
		id := string(key)
		text, err := sr.readText(field + "." + jsonscan.Cap(id, 64))
		if err != nil || text == "" {
			return err
		}
		if run.strBytes += len(id) + len(text); run.strBytes > sarifMaxStrings {
			sr.extraStrings++
			return nil
		}
		if out == nil {
			out = map[string]string{}
		}
		out[id] = text
		return nil
	})
	return out, err
}

// sarifScore is a security-severity property: a number or a numeric
// string. A string that is not a number is kept in bad.
type sarifScore struct {
	set bool
	v   float64
	bad string
}

// readProperties reads a property bag for its security-severity.
func (sr *sarifReader) readProperties() (sarifScore, error) {
	s := sr.sc
	var sc sarifScore
	err := sr.readObject("properties", func(k []byte) error {
		if string(k) != "security-severity" {
			return s.Skip(8)
		}
		c, err := s.Next()
		if err != nil {
			return err
		}
		at := s.Off()
		var raw string
		switch {
		case c == '"':
			if raw, err = s.StringVal("", "security-severity", 64); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			b, err := s.Number()
			if err != nil {
				return err
			}
			raw = string(b)
		case c == 'n':
			_, err := s.Literal()
			return err
		default:
			return s.Errorf(at, "security-severity is %s, expected a number", jsonscan.Kind(c))
		}
		t := strings.TrimSpace(raw)
		v, perr := strconv.ParseFloat(t, 64)
		switch {
		case perr == nil && !math.IsNaN(v) && !math.IsInf(v, 0):
			sc.set, sc.v = true, v
		case perr == nil || errors.Is(perr, strconv.ErrRange):
			return s.Errorf(at, "security-severity %s is not a finite number", jsonscan.Cap(t, 40))
		default:
			sc.bad = jsonscan.Cap(t, 40)
		}
		return nil
	})
	return sc, err
}

// severity maps the score; ok is false when there was none.
func (s sarifScore) severity() (decide.Severity, bool) {
	if s.set {
		return decide.SeverityFromScore(s.v), true
	}
	if s.bad != "" {
		// A severity word in place of a score ("high") is read as one.
		if sev, err := decide.ParseSeverity(s.bad); err == nil {
			return sev, true
		}
	}
	return 0, false
}

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

func (sr *sarifReader) readResults(run *sarifRun, what string) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	return s.Array(what, "", func(i int) error {
		at := s.Off()
		res, err := sr.readResult()
		if err == nil {
			err = sr.addResult(run, &res, at)
		}
		if err != nil {
			return sarifPrefix(err, fmt.Sprintf("%s[%d]", what, i))
		}
		return nil
	})
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

// addResult files one result.
func (sr *sarifReader) addResult(run *sarifRun, res *sarifResult, off int64) error {
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
	f := decide.Finding{Rule: ref.id, Source: sr.name}
	f.File = sarifPath(res.uri, res.uriBase, run.bases)
	if res.line > 0 {
		f.Line = res.line
	}
	sr.seq++
	key := sarifGroupKey{ref: ref, level: level, score: own}
	if !run.toolSeen {
		return sr.holdBack(run, key, f, res.msg)
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
func (sr *sarifReader) holdBack(run *sarifRun, key sarifGroupKey, f decide.Finding, msg sarifMessage) error {
	if run.groups == nil {
		run.groups = map[sarifGroupKey]*sarifGroup{}
	}
	g := run.groups[key]
	if g == nil {
		if len(run.groups) >= sarifMaxGroups {
			return sr.sc.Errorf(sr.sc.Off(), "runs[%d]: more than %d distinct rules in results that come before the tool", run.idx, sarifMaxGroups)
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

// sarifRule is what the reader keeps of one reportingDescriptor.
type sarifRule struct {
	id       string
	desc     string
	level    string // defaultConfiguration.level, lower case; "" when absent
	score    decide.Severity
	hasScore bool
	msgs     map[string]string // messageStrings: id → text
}

// sarifRuleRef names the rule of a result: a tool component (-1 for the
// driver, else an extension index), an index into its rules (-1 when
// absent) and an id.
type sarifRuleRef struct {
	comp  int
	index int
	id    string
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

// sarifRun is the state of one run.
type sarifRun struct {
	idx      int
	driver   string
	toolSeen bool
	comps    map[int][]sarifRule
	byID     map[string]*sarifRule
	rules    int
	bases    map[string]string         // originalUriBaseIds: name → file path prefix
	global   map[int]map[string]string // globalMessageStrings per component
	strBytes int                       // bytes of message strings kept

	pending []sarifPending
	groups  map[sarifGroupKey]*sarifGroup

	errType, errOther int // error-level results: "typecheck" rule, others
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

func (sr *sarifReader) countError(run *sarifRun, ruleID string, isErr bool, n int) {
	if !isErr {
		return
	}
	if sarifIsTypeRule(ruleID) {
		run.errType += n
	} else {
		run.errOther += n
	}
}

// lookup finds the rule of a result: by index in its component, else by
// id (a hierarchical id "a/b" falls back to "a"). missing counts results
// that named a rule the run does not have.
func (run *sarifRun) lookup(ref sarifRuleRef, missing *int) *sarifRule {
	if ref.index >= 0 {
		if list := run.comps[ref.comp]; ref.index < len(list) {
			return &list[ref.index]
		}
	}
	if ref.id != "" {
		if r := run.byID[ref.id]; r != nil {
			return r
		}
		if i := strings.IndexByte(ref.id, '/'); i > 0 {
			if r := run.byID[ref.id[:i]]; r != nil {
				return r
			}
		}
	}
	if (ref.index >= 0 || ref.id != "") && run.rules > 0 {
		*missing++
	}
	return nil
}

// sarifResolve returns a result's severity and whether its effective level
// is error.
func sarifResolve(key sarifGroupKey, rule *sarifRule) (decide.Severity, bool) {
	level := key.level
	if level == "" {
		switch {
		case rule != nil && rule.level != "":
			level = rule.level
		default:
			level = "warning"
		}
	}
	isErr := level == "error"
	switch {
	case key.score != 0:
		return key.score, isErr
	case rule != nil && rule.hasScore:
		return rule.score, isErr
	}
	sev, _ := decide.ParseSeverity(level)
	return sev, isErr
}

// sarifFillMessage sets a result's message (SARIF §3.11): its text, else
// the message string its id names — the rule's messageStrings, else the
// globalMessageStrings of the rule's tool component (comp, -1 for the
// driver) — with the placeholders filled from its arguments. A message
// that cannot be resolved falls back to the rule's description, the id,
// the rule id.
func sarifFillMessage(f *decide.Finding, m sarifMessage, comp int, rule *sarifRule, run *sarifRun) {
	text := m.text
	if text == "" && m.id != "" {
		if rule != nil {
			text = rule.msgs[m.id]
		}
		if text == "" {
			text = run.global[comp][m.id]
		}
	}
	if text != "" {
		if len(m.args) > 0 {
			text = sarifFormat(text, m.args)
		}
		f.Message = jsonscan.Cap(text, sarifMaxMessage)
		return
	}
	switch {
	case rule != nil && rule.desc != "":
		f.Message = rule.desc
	case m.id != "":
		f.Message = m.id
	case f.Rule != "":
		f.Message = f.Rule
	default:
		f.Message = "(no message)"
	}
}

// sarifFormat fills the placeholders {0}, {1}… of a SARIF message string
// from args (SARIF §3.11.5); "{{" and "}}" stand for literal braces, and a
// placeholder without its argument is left as written.
func sarifFormat(s string, args []string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case (c == '{' || c == '}') && i+1 < len(s) && s[i+1] == c:
			b.WriteByte(c)
			i++
		case c == '{':
			j := i + 1
			for j < len(s) && j-i <= 3 && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == '}' {
				if n, _ := strconv.Atoi(s[i+1 : j]); n < len(args) {
					b.WriteString(args[n])
					i = j
					continue
				}
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		if b.Len() > sarifMaxMessage {
			break
		}
	}
	return b.String()
}

func (sr *sarifReader) finish() *decide.Evidence {
	ev := sr.ev
	ev.Findings = sr.keep.findings()
	ev.Omitted = sr.keep.omitted
	if !sr.sawVersion {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: no SARIF version given; read as 2.1.0", sr.name))
	}
	if sr.suppressed > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d suppressed %s ignored", sr.name, sr.suppressed, sarifPlural(sr.suppressed, "result", "results")))
	}
	if sr.notFail > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d %s of a kind other than fail (pass, informational, review, ...) ignored", sr.name, sr.notFail, sarifPlural(sr.notFail, "result", "results")))
	}
	if sr.extraStrings > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d message strings past the first %d MiB of a run not kept", sr.name, sr.extraStrings, sarifMaxStrings>>20))
	}
	if sr.absent > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d %s with baselineState absent (fixed) ignored", sr.name, sr.absent, sarifPlural(sr.absent, "result", "results")))
	}
	if sr.badScores > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d security-severity %s not a number; the level was used instead", sr.name, sr.badScores, sarifPlural(sr.badScores, "value was", "values were")))
	}
	if sr.unknownRef > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d %s a rule the tool does not list; read with the default level warning", sr.name, sr.unknownRef, sarifPlural(sr.unknownRef, "result names", "results name")))
	}
	if sr.extraRules > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d rules past the first %d of a run ignored", sr.name, sr.extraRules, sarifMaxRules))
	}
	if sr.overflow > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: results come before the tool's rules; %d of them were counted but could not be held for ranking", sr.name, sr.overflow))
	}
	if sr.uncompared > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d results before the tool's rules were not held, so not compared for repeats: all counted (counts may be too high)", sr.name, sr.uncompared))
	}
	ev.Notes = append(ev.Notes, sr.keep.dedupeNotes(sr.name)...)
	if n := ev.Omitted.Total(); n > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: kept the %d most severe of %d findings; %d omitted", sr.name, len(ev.Findings), len(ev.Findings)+n, n))
	}
	return ev
}

func sarifPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sarifLevel normalizes a SARIF level.
func sarifLevel(s string) (string, bool) {
	l := strings.ToLower(strings.TrimSpace(s))
	return l, sarifIsLevel(l)
}

func sarifIsLevel(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error", "warning", "note", "none":
		return true
	}
	return false
}

// sarifTypeCheckers are tool names whose errors are type errors.
var sarifTypeCheckers = map[string]bool{
	"tsc": true, "typescript": true, "mypy": true, "pyright": true, "pytype": true,
	"flow": true, "pyre": true, "sorbet": true, "typecheck": true, "typechecker": true,
}

// sarifIsTypeChecker reports whether a tool (or checkstyle source) name
// names a type checker: one of its words is tsc, typescript, mypy, pyright,
// pytype, flow, pyre, sorbet or typecheck and none is a linter's
// ("eslint.rules.@typescript-eslint/..." is a linter), or it is a
// TypeScript diagnostic code such as TS2322.
func sarifIsTypeChecker(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	found := false
	for _, w := range words {
		if strings.Contains(w, "lint") {
			return false
		}
		found = found || sarifTypeCheckers[w]
	}
	if found {
		return true
	}
	return len(words) == 1 && sarifIsTSCode(words[0])
}

// sarifIsTSCode reports whether w is a TypeScript diagnostic code ("ts2322").
func sarifIsTSCode(w string) bool {
	if len(w) < 3 || !strings.HasPrefix(w, "ts") {
		return false
	}
	for _, r := range w[2:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// sarifIsTypeRule reports whether a rule id of a general linter stands for
// a type error (golangci-lint reports compile errors as "typecheck").
func sarifIsTypeRule(id string) bool {
	return strings.EqualFold(id, "typecheck") || sarifIsTSCode(strings.ToLower(id))
}

// sarifPath turns an artifact URI into a file path: file:// URIs lose their
// scheme, an absolute path under a known uriBaseId root becomes relative to
// it, percent escapes are decoded and a leading "./" is dropped.
func sarifPath(uri, baseID string, bases map[string]string) string {
	uri = strings.TrimSpace(uri)
	if uri == "" {
		return ""
	}
	p, isFile := sarifFileURIPath(uri)
	if !isFile {
		if strings.Contains(uri, "://") {
			return uri // some other scheme: keep as given
		}
		p = sarifUnescape(uri)
		if strings.HasPrefix(p, "%") && baseID == "" {
			// "%SRCROOT%/a.go": a base id spelled into the uri.
			if i := strings.Index(p[1:], "%"); i >= 0 {
				p = strings.TrimLeft(p[i+2:], "/")
			}
		}
	}
	if bases != nil {
		p = sarifRelBase(p, bases)
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// sarifRelBase makes an absolute path relative to the longest matching
// base.
func sarifRelBase(p string, bases map[string]string) string {
	if !strings.HasPrefix(p, "/") && !(len(p) > 2 && p[1] == ':') {
		return p
	}
	best := ""
	for _, b := range bases {
		if strings.HasPrefix(p, b) && len(b) > len(best) {
			best = b
		}
	}
	if best != "" && len(p) > len(best) {
		return p[len(best):]
	}
	return p
}

// sarifFileURIPath returns the path of a file: URI; ok is false for
// anything else.
func sarifFileURIPath(uri string) (string, bool) {
	if len(uri) < 5 || !strings.EqualFold(uri[:5], "file:") {
		return "", false
	}
	rest := uri[5:]
	// "file:///p" and "file://localhost/p" are the local path "/p";
	// "file://host/share" keeps its host as a UNC path "//host/share".
	if strings.HasPrefix(rest, "///") {
		rest = rest[2:]
	} else if strings.HasPrefix(strings.ToLower(rest), "//localhost/") {
		rest = rest[len("//localhost"):]
	}
	p := sarifUnescape(rest)
	// "/C:/x" is the Windows path "C:/x".
	if len(p) > 3 && p[0] == '/' && p[2] == ':' && p[3] == '/' {
		p = p[1:]
	}
	return p, true
}

func sarifUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	if u, err := url.PathUnescape(s); err == nil && utf8.ValidString(u) {
		return u
	}
	return s
}

// isSARIF reports whether the head of a file is a SARIF log: a JSON object
// whose "$schema" mentions sarif, or with "version": "2.1.0" and "runs".
func isSARIF(head []byte) bool {
	h, ok := jsonObjectHead(head)
	if !ok {
		return false
	}
	if v, ok := sarifKeyString(h, "$schema"); ok && strings.Contains(strings.ToLower(v), "sarif") {
		return true
	}
	if sarifRunsFirst(h) {
		return true
	}
	v, ok := sarifKeyString(h, "version")
	return ok && v == "2.1.0" && valHasKey(h, "runs")
}

// jsonObjectHead trims white space and a UTF-8 byte order mark from the
// front of a file's head; ok reports whether a JSON object starts there.
func jsonObjectHead(head []byte) (h []byte, ok bool) {
	h = bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("\uFEFF")), " \t\r\n")
	return h, len(h) > 0 && h[0] == '{'
}

// sarifKeyString finds "key": "value" in h and returns the value (without
// unescaping; at most 512 bytes).
func sarifKeyString(h []byte, key string) (string, bool) {
	q := []byte(`"` + key + `"`)
	for i := 0; ; {
		j := bytes.Index(h[i:], q)
		if j < 0 {
			return "", false
		}
		i += j + len(q)
		rest := bytes.TrimLeft(h[i:], " \t\r\n")
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		if len(rest) == 0 || rest[0] != '"' {
			continue
		}
		rest = rest[1:]
		if len(rest) > 512 {
			rest = rest[:512]
		}
		if k := bytes.IndexByte(rest, '"'); k >= 0 {
			return string(rest[:k]), true
		}
		return "", false
	}
}

// sarifRunsFirst reports whether the object at the head of h opens with a
// "runs" array, as gosec writes its logs ($schema and version come after
// the results, past any head a sniffer looks at). No other format gcloop
// reads has a top-level runs array; ReadSARIF checks the version.
func sarifRunsFirst(h []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(h[1:], " \t\r\n"), []byte(`"runs"`))
	if !ok {
		return false
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	return len(rest) > 0 && rest[0] == '['
}
