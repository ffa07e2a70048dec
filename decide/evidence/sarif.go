package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gcloop/gcloop/decide"
)

// MaxFindings is the most findings ReadSARIF and ReadCheckstyle keep from
// one file. Beyond it the most severe are kept (the earlier of equally
// severe ones) and the rest are counted in Evidence.Omitted, so memory does
// not grow with the size of the log.
const MaxFindings = 5000

// Limits of the SARIF reader.
const (
	// sarifMaxValue caps the bytes of one JSON value the reader decodes
	// whole (a result, a rule, a skipped property) and of one token.
	sarifMaxValue = 16 << 20
	// sarifMaxMessage caps a finding's message.
	sarifMaxMessage = 4 << 10
	// sarifMaxField caps file paths, rule ids and tool names.
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
	// sarifMaxDepth caps the nesting the reader walks token by token.
	sarifMaxDepth = 64
)

// ReadSARIF reads a SARIF 2.1.0 log (CodeQL, gosec, semgrep, ESLint's SARIF
// formatter, staticcheck, ...) into findings. The log is streamed: runs,
// rules and results are read one at a time, and at most MaxFindings
// findings are kept (the most severe; the rest are counted in
// Evidence.Omitted).
//
// Severity follows DESIGN §3.6: a security-severity property (the result's
// own, else its rule's) maps ≥ 9 critical, ≥ 7 high, ≥ 4 medium, else low;
// otherwise the level (the result's, else the rule's
// defaultConfiguration.level, else warning) maps error → high, warning →
// medium, note/none → low. Results with a suppression whose status is
// absent or accepted are ignored, as are results of kind pass or
// notApplicable and results whose baselineState is absent (fixed since the
// baseline). Results of effective level error count as TypeErrors when the
// tool is a type checker (or the rule is "typecheck") and as LintErrors
// otherwise.
func ReadSARIF(name string, r io.Reader) (*decide.Evidence, error) {
	lim := &sarifLimiter{r: r}
	dec := json.NewDecoder(lim)
	sr := &sarifReader{
		name: name,
		lim:  lim,
		dec:  dec,
		keep: sarifKeeper{max: MaxFindings},
		ev:   &decide.Evidence{Sources: []string{name}, Analysis: true},
	}
	if err := sr.readLog(); err != nil {
		return nil, err
	}
	return sr.finish(), nil
}

// sarifLimiter counts the bytes read and fails once a read would go past
// limit: the reader moves limit forward before each token or value, so no
// single token or value can grow the decoder's buffer past sarifMaxValue.
type sarifLimiter struct {
	r     io.Reader
	n     int64
	limit int64
}

var errSarifTooBig = errors.New("value too large")

func (l *sarifLimiter) Read(p []byte) (int, error) {
	if l.n >= l.limit {
		return 0, errSarifTooBig
	}
	if room := l.limit - l.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// allow lets the next token or value use up to max more bytes.
func (l *sarifLimiter) allow(max int64) { l.limit = l.n + max }

// sarifReader holds the state of one ReadSARIF call.
type sarifReader struct {
	name string
	lim  *sarifLimiter
	dec  *json.Decoder
	keep sarifKeeper
	ev   *decide.Evidence
	seq  int // results read, for document order

	version    string
	sawVersion bool
	sawRuns    bool
	runs       int

	suppressed int // results ignored for a suppression
	absent     int // results ignored for baselineState absent
	badScores  int // security-severity values that are not numbers
	unknownRef int // results whose rule could not be found
	overflow   int // results held back past sarifMaxPending
	extraRules int // rules past sarifMaxRules
}

// sarifErrorf returns a ParseError at the decoder's current offset.
func (sr *sarifReader) errorf(format string, args ...any) error {
	return decide.OffsetError(sr.name, sr.dec.InputOffset(), format, args...)
}

// wrap turns an error of the decoder into a ParseError at off.
func (sr *sarifReader) wrap(off int64, what string, err error) error {
	var pe *decide.ParseError
	if errors.As(err, &pe) {
		return err
	}
	var ute *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.Is(err, errSarifTooBig):
		return decide.OffsetError(sr.name, off, "%s: a single value is larger than %d MiB", what, sarifMaxValue>>20)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return decide.OffsetError(sr.name, sr.lim.n, "%s: unexpected end of file, expected the rest of the SARIF log", what)
	case errors.As(err, &ute):
		field := ute.Field
		if field == "" {
			field = "value"
		}
		return decide.OffsetError(sr.name, off+ute.Offset, "%s: %s is a JSON %s, expected %s", what, field, ute.Value, sarifTypeName(ute.Type.String()))
	case errors.As(err, &se):
		return decide.OffsetError(sr.name, off, "%s: invalid JSON: %s", what, sarifTrimJSONErr(se.Error()))
	case errors.As(err, new(*sarifValueError)):
		return decide.OffsetError(sr.name, off, "%s: %v", what, err)
	}
	if strings.HasPrefix(err.Error(), "json: ") || strings.Contains(err.Error(), "exceeded max depth") {
		return decide.OffsetError(sr.name, off, "%s: invalid JSON: %s", what, sarifTrimJSONErr(err.Error()))
	}
	return &decide.ParseError{File: sr.name, Offset: sr.lim.n, Msg: "read failed", Err: err}
}

func sarifTrimJSONErr(s string) string { return strings.TrimPrefix(s, "json: ") }

func sarifTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "int"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "an object"
}

// token reads the next token with the per-value limit.
func (sr *sarifReader) token(what string) (json.Token, error) {
	off := sr.dec.InputOffset()
	sr.lim.allow(sarifMaxValue)
	t, err := sr.dec.Token()
	if err != nil {
		return nil, sr.wrap(off, what, err)
	}
	return t, nil
}

// decode decodes the next value into v with the per-value limit.
func (sr *sarifReader) decode(what string, v any) error {
	off := sr.dec.InputOffset()
	sr.lim.allow(sarifMaxValue)
	if err := sr.dec.Decode(v); err != nil {
		return sr.wrap(off, what, err)
	}
	return nil
}

// sarifIgnore swallows a JSON value without keeping it.
type sarifIgnore struct{}

func (*sarifIgnore) UnmarshalJSON([]byte) error { return nil }

// skip skips the next value. Arrays and objects are walked element by
// element, so a large but shallow value (run.artifacts, say) does not have
// to fit the per-value limit as a whole.
func (sr *sarifReader) skip(what string, depth int) error {
	if depth >= sarifMaxDepth {
		return sr.decode(what, &sarifIgnore{})
	}
	t, err := sr.token(what)
	if err != nil {
		return err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return nil
	}
	for sr.dec.More() {
		if d == '{' {
			if _, err := sr.token(what); err != nil {
				return err
			}
		}
		if err := sr.decode(what, &sarifIgnore{}); err != nil {
			return err
		}
	}
	_, err = sr.token(what) // the closing delimiter
	return err
}

// expectDelim reads an opening delimiter.
func (sr *sarifReader) expectDelim(what string, want json.Delim) error {
	off := sr.dec.InputOffset()
	t, err := sr.token(what)
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		if ok {
			off = sr.dec.InputOffset() - 1
		}
		kind := "an object"
		if want == '[' {
			kind = "an array"
		}
		return decide.OffsetError(sr.name, off, "%s: expected %s, found %s", what, kind, sarifDescribe(t))
	}
	return nil
}

// key reads an object key.
func (sr *sarifReader) key(what string) (string, error) {
	t, err := sr.token(what)
	if err != nil {
		return "", err
	}
	k, ok := t.(string)
	if !ok {
		return "", sr.errorf("%s: expected an object key, found %s", what, sarifDescribe(t))
	}
	return k, nil
}

func sarifDescribe(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a value"
}

// readLog reads the top-level object.
func (sr *sarifReader) readLog() error {
	sr.lim.allow(sarifMaxValue)
	t, err := sr.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return decide.OffsetError(sr.name, 0, "empty file, expected a SARIF log (a JSON object)")
		}
		return sr.wrap(0, "SARIF log", err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return decide.OffsetError(sr.name, 0, "expected a SARIF log (a JSON object), found %s", sarifDescribe(t))
	}
	for sr.dec.More() {
		k, err := sr.key("SARIF log")
		if err != nil {
			return err
		}
		switch k {
		case "version":
			var raw json.RawMessage
			if err := sr.decode("version", &raw); err != nil {
				return err
			}
			off := sr.dec.InputOffset() - int64(len(raw))
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return decide.OffsetError(sr.name, off, "version: expected the string \"2.1.0\", found %s", sarifCap(string(raw), 40))
			}
			sr.version, sr.sawVersion = v, true
			if v != "2.1.0" {
				return decide.OffsetError(sr.name, off, "SARIF version %q is not supported, expected 2.1.0", sarifCap(v, 64))
			}
		case "runs":
			off := sr.dec.InputOffset()
			t, err := sr.token("runs")
			if err != nil {
				return err
			}
			if t == nil {
				off = sr.dec.InputOffset() - int64(len("null"))
				return decide.OffsetError(sr.name, off, "runs is null: the tool did not produce any run")
			}
			if d, ok := t.(json.Delim); !ok || d != '[' {
				if ok {
					off = sr.dec.InputOffset() - 1
				}
				return decide.OffsetError(sr.name, off, "runs: expected an array, found %s", sarifDescribe(t))
			}
			sr.sawRuns = true
			for sr.dec.More() {
				if err := sr.readRun(); err != nil {
					return err
				}
			}
			if _, err := sr.token("runs"); err != nil {
				return err
			}
		default:
			if err := sr.skip(k, 0); err != nil {
				return err
			}
		}
	}
	if _, err := sr.token("SARIF log"); err != nil { // the closing brace
		return err
	}
	if !sr.sawRuns {
		return decide.OffsetError(sr.name, sr.dec.InputOffset(), "not a SARIF log: the object has no \"runs\" array")
	}
	off := sr.dec.InputOffset()
	sr.lim.allow(sarifMaxValue)
	if _, err := sr.dec.Token(); !errors.Is(err, io.EOF) {
		return decide.OffsetError(sr.name, off, "unexpected data after the SARIF log")
	}
	return nil
}

// sarifRule is what the reader keeps of one reportingDescriptor.
type sarifRule struct {
	id       string
	desc     string
	level    string // defaultConfiguration.level, lower case; "" when absent
	score    decide.Severity
	hasScore bool
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
	ref     sarifRuleRef
	level   string
	nonFail bool
	score   decide.Severity
}

type sarifGroup struct {
	total, kept, overflow int
}

// sarifPending is a result read before its run's rules.
type sarifPending struct {
	key   sarifGroupKey
	seq   int
	f     decide.Finding
	msgID string
}

// sarifRun is the state of one run.
type sarifRun struct {
	idx      int
	driver   string
	toolSeen bool
	comps    map[int][]sarifRule
	byID     map[string]*sarifRule
	rules    int
	bases    map[string]string // originalUriBaseIds: name → file path prefix

	pending []sarifPending
	groups  map[sarifGroupKey]*sarifGroup

	errType, errOther int // error-level results: "typecheck" rule, others
}

func (sr *sarifReader) readRun() error {
	what := fmt.Sprintf("runs[%d]", sr.runs)
	run := &sarifRun{idx: sr.runs, comps: map[int][]sarifRule{}, byID: map[string]*sarifRule{}}
	sr.runs++
	if err := sr.expectDelim(what, '{'); err != nil {
		return err
	}
	for sr.dec.More() {
		k, err := sr.key(what)
		if err != nil {
			return err
		}
		switch k {
		case "tool":
			if err := sr.readTool(run, what+".tool"); err != nil {
				return err
			}
		case "results":
			if err := sr.readResults(run, what+".results"); err != nil {
				return err
			}
		case "originalUriBaseIds":
			var bases map[string]struct {
				URI       string `json:"uri"`
				URIBaseID string `json:"uriBaseId"`
			}
			if err := sr.decode(what+".originalUriBaseIds", &bases); err != nil {
				return err
			}
			run.bases = map[string]string{}
			for name, b := range bases {
				if p, ok := sarifFileURIPath(b.URI); ok && b.URIBaseID == "" {
					if !strings.HasSuffix(p, "/") {
						p += "/"
					}
					run.bases[name] = p
				}
			}
		default:
			if err := sr.skip(what+"."+k, 0); err != nil {
				return err
			}
		}
	}
	if _, err := sr.token(what); err != nil {
		return err
	}
	sr.finishRun(run)
	return nil
}

// readTool reads tool.driver and tool.extensions with their rules.
func (sr *sarifReader) readTool(run *sarifRun, what string) error {
	if err := sr.expectDelim(what, '{'); err != nil {
		return err
	}
	for sr.dec.More() {
		k, err := sr.key(what)
		if err != nil {
			return err
		}
		switch k {
		case "driver":
			if err := sr.readComponent(run, -1, what+".driver"); err != nil {
				return err
			}
		case "extensions":
			if err := sr.expectDelim(what+".extensions", '['); err != nil {
				return err
			}
			for i := 0; sr.dec.More(); i++ {
				if err := sr.readComponent(run, i, fmt.Sprintf("%s.extensions[%d]", what, i)); err != nil {
					return err
				}
			}
			if _, err := sr.token(what); err != nil {
				return err
			}
		default:
			if err := sr.skip(what+"."+k, 0); err != nil {
				return err
			}
		}
	}
	if _, err := sr.token(what); err != nil {
		return err
	}
	run.toolSeen = true
	return nil
}

// sarifMessageJSON is a SARIF message or multiformatMessageString.
type sarifMessageJSON struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown"`
	ID       string `json:"id"`
}

// sarifScore is a security-severity property: a number or a numeric
// string. A string that is not a number is kept in bad.
type sarifScore struct {
	set bool
	v   float64
	bad string
}

// sarifValueError is a value the SARIF reader refuses.
type sarifValueError struct{ msg string }

func (e *sarifValueError) Error() string { return e.msg }

func (s *sarifScore) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var raw string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
	} else {
		raw = string(b)
	}
	t := strings.TrimSpace(raw)
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case err == nil && !math.IsNaN(v) && !math.IsInf(v, 0):
		s.set, s.v = true, v
	case err == nil || errors.Is(err, strconv.ErrRange) || strings.EqualFold(t, "nan") || strings.Contains(strings.ToLower(t), "inf"):
		return &sarifValueError{fmt.Sprintf("security-severity %s is not a finite number", sarifCap(t, 40))}
	case len(b) > 0 && b[0] != '"':
		return &sarifValueError{fmt.Sprintf("security-severity %s is not a number", sarifCap(t, 40))}
	default:
		s.bad = sarifCap(t, 40)
	}
	return nil
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

type sarifPropsJSON struct {
	SecuritySeverity sarifScore `json:"security-severity"`
}

type sarifRuleJSON struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     *sarifMessageJSON `json:"shortDescription"`
	FullDescription      *sarifMessageJSON `json:"fullDescription"`
	DefaultConfiguration *struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
	Properties *sarifPropsJSON `json:"properties"`
}

// readComponent reads a toolComponent: its name and its rules.
func (sr *sarifReader) readComponent(run *sarifRun, comp int, what string) error {
	if err := sr.expectDelim(what, '{'); err != nil {
		return err
	}
	for sr.dec.More() {
		k, err := sr.key(what)
		if err != nil {
			return err
		}
		switch {
		case k == "name" && comp == -1:
			var n string
			if err := sr.decode(what+".name", &n); err != nil {
				return err
			}
			run.driver = sarifCap(n, sarifMaxField)
		case k == "rules":
			if err := sr.readRules(run, comp, what+".rules"); err != nil {
				return err
			}
		default:
			if err := sr.skip(what+"."+k, 0); err != nil {
				return err
			}
		}
	}
	_, err := sr.token(what)
	return err
}

func (sr *sarifReader) readRules(run *sarifRun, comp int, what string) error {
	off := sr.dec.InputOffset()
	t, err := sr.token(what)
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return decide.OffsetError(sr.name, off, "%s: expected an array, found %s", what, sarifDescribe(t))
	}
	list := run.comps[comp]
	for i := 0; sr.dec.More(); i++ {
		ew := fmt.Sprintf("%s[%d]", what, i)
		if run.rules >= sarifMaxRules {
			sr.extraRules++
			if err := sr.decode(ew, &sarifIgnore{}); err != nil {
				return err
			}
			continue
		}
		var rj sarifRuleJSON
		roff := sr.dec.InputOffset()
		if err := sr.decode(ew, &rj); err != nil {
			return err
		}
		rule := sarifRule{id: sarifCap(rj.ID, sarifMaxField)}
		if rj.DefaultConfiguration != nil && rj.DefaultConfiguration.Level != "" {
			lv, ok := sarifLevel(rj.DefaultConfiguration.Level)
			if !ok {
				return decide.OffsetError(sr.name, roff, "%s: unknown defaultConfiguration.level %q (want error, warning, note or none)", ew, sarifCap(rj.DefaultConfiguration.Level, 40))
			}
			rule.level = lv
		}
		if rj.Properties != nil {
			if sev, ok := rj.Properties.SecuritySeverity.severity(); ok {
				rule.score, rule.hasScore = sev, true
			} else if rj.Properties.SecuritySeverity.bad != "" {
				sr.badScores++
			}
		}
		switch {
		case rj.ShortDescription != nil && sarifMsgText(*rj.ShortDescription) != "":
			rule.desc = sarifCap(sarifMsgText(*rj.ShortDescription), sarifMaxDesc)
		case rj.FullDescription != nil && sarifMsgText(*rj.FullDescription) != "":
			rule.desc = sarifCap(sarifMsgText(*rj.FullDescription), sarifMaxDesc)
		default:
			rule.desc = sarifCap(rj.Name, sarifMaxDesc)
		}
		list = append(list, rule)
		run.rules++
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
	_, err = sr.token(what)
	return err
}

type sarifResultJSON struct {
	RuleID    string `json:"ruleId"`
	RuleIndex *int   `json:"ruleIndex"`
	Rule      *struct {
		ID            string `json:"id"`
		Index         *int   `json:"index"`
		ToolComponent *struct {
			Index *int `json:"index"`
		} `json:"toolComponent"`
	} `json:"rule"`
	Kind          string           `json:"kind"`
	Level         string           `json:"level"`
	Message       sarifMessageJSON `json:"message"`
	Locations     []sarifLocation  `json:"locations"`
	Suppressions  []sarifSuppress  `json:"suppressions"`
	BaselineState string           `json:"baselineState"`
	Properties    *sarifPropsJSON  `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *struct {
		ArtifactLocation *struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

type sarifSuppress struct {
	Status *string `json:"status"`
}

func (sr *sarifReader) readResults(run *sarifRun, what string) error {
	off := sr.dec.InputOffset()
	t, err := sr.token(what)
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return decide.OffsetError(sr.name, off, "%s: expected an array, found %s", what, sarifDescribe(t))
	}
	for i := 0; sr.dec.More(); i++ {
		roff := sr.dec.InputOffset()
		var res sarifResultJSON
		if err := sr.decode(what, &res); err != nil {
			return sarifAt(err, what, i)
		}
		if err := sr.addResult(run, &res, roff, what, i); err != nil {
			return err
		}
	}
	_, err = sr.token(what)
	return err
}

// sarifAt rewrites "runs[0].results: ..." as "runs[0].results[i]: ...".
func sarifAt(err error, what string, i int) error {
	var pe *decide.ParseError
	if errors.As(err, &pe) && strings.HasPrefix(pe.Msg, what+":") {
		pe.Msg = fmt.Sprintf("%s[%d]%s", what, i, pe.Msg[len(what):])
	}
	return err
}

// addResult files one result.
func (sr *sarifReader) addResult(run *sarifRun, res *sarifResultJSON, off int64, what string, i int) error {
	kind := strings.ToLower(strings.TrimSpace(res.Kind))
	switch kind {
	case "pass", "notapplicable":
		return nil // not a problem
	}
	if strings.EqualFold(res.BaselineState, "absent") {
		sr.absent++
		return nil
	}
	for _, s := range res.Suppressions {
		if s.Status == nil || *s.Status == "" || strings.EqualFold(*s.Status, "accepted") {
			sr.suppressed++
			return nil
		}
	}
	level := ""
	if res.Level != "" {
		lv, ok := sarifLevel(res.Level)
		if !ok {
			return decide.OffsetError(sr.name, off, "%s[%d]: unknown level %q (want error, warning, note or none)", what, i, sarifCap(res.Level, 40))
		}
		level = lv
	}
	var own decide.Severity
	if res.Properties != nil {
		if sev, ok := res.Properties.SecuritySeverity.severity(); ok {
			own = sev
		} else if res.Properties.SecuritySeverity.bad != "" {
			sr.badScores++
		}
	}
	ref := sarifRuleRef{comp: -1, index: -1, id: sarifCap(res.RuleID, sarifMaxField)}
	if res.RuleIndex != nil {
		ref.index = *res.RuleIndex
	}
	if res.Rule != nil {
		if ref.id == "" {
			ref.id = sarifCap(res.Rule.ID, sarifMaxField)
		}
		if res.Rule.Index != nil {
			ref.index = *res.Rule.Index
		}
		if tc := res.Rule.ToolComponent; tc != nil && tc.Index != nil && *tc.Index >= 0 {
			ref.comp = *tc.Index
		}
	}
	if ref.index < -1 {
		ref.index = -1
	}
	f := decide.Finding{Rule: ref.id, Message: sarifCap(sarifMsgText(res.Message), sarifMaxMessage), Source: sr.name}
	if len(res.Locations) > 0 && res.Locations[0].PhysicalLocation != nil {
		pl := res.Locations[0].PhysicalLocation
		if pl.ArtifactLocation != nil {
			f.File = sarifCap(sarifPath(pl.ArtifactLocation.URI, pl.ArtifactLocation.URIBaseID, run.bases), sarifMaxField)
		}
		if pl.Region != nil && pl.Region.StartLine > 0 {
			f.Line = pl.Region.StartLine
		}
	}
	sr.seq++
	key := sarifGroupKey{ref: ref, level: level, nonFail: kind != "" && kind != "fail", score: own}
	if !run.toolSeen {
		return sr.holdBack(run, key, f, res.Message.ID)
	}
	rule := run.lookup(ref, &sr.unknownRef)
	sev, isErr := sarifResolve(key, rule)
	sr.countError(run, ref.id, isErr, 1)
	if !sr.keep.wants(sev, sr.seq) {
		sr.keep.omitted.Add(sev)
		return nil
	}
	f.Severity = sev
	sarifFillMessage(&f, res.Message.ID, rule)
	sr.keep.add(sr.seq, f)
	return nil
}

// holdBack keeps a result read before its run's tool until the run ends.
func (sr *sarifReader) holdBack(run *sarifRun, key sarifGroupKey, f decide.Finding, msgID string) error {
	if run.groups == nil {
		run.groups = map[sarifGroupKey]*sarifGroup{}
	}
	g := run.groups[key]
	if g == nil {
		if len(run.groups) >= sarifMaxGroups {
			return sr.errorf("runs[%d]: more than %d distinct rules in results that come before the tool", run.idx, sarifMaxGroups)
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
		g.overflow++
		return nil
	}
	g.kept++
	run.pending = append(run.pending, sarifPending{key: key, seq: sr.seq, f: f, msgID: sarifCap(msgID, sarifMaxField)})
	return nil
}

// finishRun resolves held-back results and the run's error counts.
func (sr *sarifReader) finishRun(run *sarifRun) {
	var counted int // unknown rules are counted per group below
	for _, p := range run.pending {
		rule := run.lookup(p.key.ref, &counted)
		sev, _ := sarifResolve(p.key, rule)
		p.f.Severity = sev
		sarifFillMessage(&p.f, p.msgID, rule)
		if p.f.File != "" && run.bases != nil {
			p.f.File = sarifRelBase(p.f.File, run.bases)
		}
		sr.keep.add(p.seq, p.f)
	}
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
		case key.nonFail:
			level = "none" // SARIF §3.27.10: kinds other than fail default to none
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

// sarifFillMessage supplies a message for a result that gave only an id.
func sarifFillMessage(f *decide.Finding, msgID string, rule *sarifRule) {
	if f.Message != "" {
		return
	}
	switch {
	case rule != nil && rule.desc != "":
		f.Message = rule.desc
	case msgID != "":
		f.Message = msgID
	case f.Rule != "":
		f.Message = f.Rule
	default:
		f.Message = "(no message)"
	}
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

// sarifMsgText is a message's text, else its markdown.
func sarifMsgText(m sarifMessageJSON) string {
	if t := strings.TrimSpace(m.Text); t != "" {
		return t
	}
	return strings.TrimSpace(m.Markdown)
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

// sarifCap shortens s to at most max bytes on a rune boundary, marking the
// cut with "…". The result never shares memory with a long s.
func sarifCap(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut]) + "…"
}

// sarifKeeper keeps at most max findings: a heap whose root is the least
// severe, latest finding, so a more severe (or equally severe but earlier)
// finding can replace it. Whatever it drops is counted in omitted.
type sarifKeeper struct {
	max     int
	items   []sarifKept
	omitted decide.Counts
}

type sarifKept struct {
	seq int
	f   decide.Finding
}

// sarifWorse orders findings for the heap: a ranks below b.
func sarifWorse(sa decide.Severity, qa int, sb decide.Severity, qb int) bool {
	if sa != sb {
		return sa > sb
	}
	return qa > qb
}

// wants reports whether a finding of severity sev at seq would be kept.
func (k *sarifKeeper) wants(sev decide.Severity, seq int) bool {
	if len(k.items) < k.max {
		return true
	}
	if k.max == 0 {
		return false
	}
	root := k.items[0]
	return sarifWorse(root.f.Severity, root.seq, sev, seq)
}

// add offers a finding; f.Severity must be set.
func (k *sarifKeeper) add(seq int, f decide.Finding) {
	if len(k.items) < k.max {
		k.items = append(k.items, sarifKept{seq: seq, f: f})
		k.up(len(k.items) - 1)
		return
	}
	if !k.wants(f.Severity, seq) {
		k.omitted.Add(f.Severity)
		return
	}
	k.omitted.Add(k.items[0].f.Severity)
	k.items[0] = sarifKept{seq: seq, f: f}
	k.down(0)
}

func (k *sarifKeeper) worse(i, j int) bool {
	a, b := &k.items[i], &k.items[j]
	return sarifWorse(a.f.Severity, a.seq, b.f.Severity, b.seq)
}

func (k *sarifKeeper) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !k.worse(i, p) {
			return
		}
		k.items[i], k.items[p] = k.items[p], k.items[i]
		i = p
	}
}

func (k *sarifKeeper) down(i int) {
	n := len(k.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l
		if r := l + 1; r < n && k.worse(r, l) {
			w = r
		}
		if !k.worse(w, i) {
			return
		}
		k.items[i], k.items[w] = k.items[w], k.items[i]
		i = w
	}
}

// findings returns the kept findings in document order.
func (k *sarifKeeper) findings() []decide.Finding {
	if len(k.items) == 0 {
		return nil
	}
	sort.Slice(k.items, func(i, j int) bool { return k.items[i].seq < k.items[j].seq })
	out := make([]decide.Finding, len(k.items))
	for i := range k.items {
		out[i] = k.items[i].f
	}
	k.items = nil
	return out
}
