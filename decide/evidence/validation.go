package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
)

// valMaxSize caps a validation report; a larger one is unreadable.
const valMaxSize = 16 << 20

// ReadValidationReport reads the validation-report.json of the framework's
// technical-debt validation step (DESIGN §2.4) into Evidence.Validation.
//
// Both key variants are read: the total as total_regressions or
// regressions; the checks as tests/types/lint/quality or
// test_suite/type_check/lint_check/quality_analysis, inside a "checks"
// object (or array of named checks) or at the top level, each as an object
// with a status and counts (regressions, failed, failures, errors, issues
// or count; total), or as a bare status, boolean or count. The debt score
// comes from debt_score_before/debt_score_after or debt_score: {before,
// after}; the improvement from improvement_percentage, improvement_percent
// or improvement (a number, or a string such as "40%").
//
// A report that cannot be read counts as a failed validation (DESIGN §2.4):
// content that is not JSON, has wrong types, holds none of the keys above
// or exceeds 16 MiB gives evidence whose Validation.Unreadable (and one
// note) says why, naming the file and byte offset, with a nil error. Only a
// failing reader is an error.
func ReadValidationReport(name string, r io.Reader) (*decide.Evidence, error) {
	cr := &valCountReader{r: r, max: valMaxSize}
	vr := &valReader{
		sc:    jsonscan.New(name, cr, 16<<10),
		facts: &decide.ValidationFacts{},
	}
	ev := &decide.Evidence{Sources: []string{name}, Validation: vr.facts}
	err := vr.read()
	var ioErr *decide.ParseError
	switch {
	case cr.over:
		err = decide.OffsetError(name, valMaxSize, "report larger than %d MiB", valMaxSize>>20)
	case err != nil && errors.As(err, &ioErr) && ioErr.Err != nil:
		return nil, err // the reader failed: not the report's fault
	}
	if err != nil {
		msg := err.Error()
		ev.Validation = &decide.ValidationFacts{Unreadable: msg}
		ev.Notes = []string{msg}
		return ev, nil
	}
	ev.Notes = vr.notes
	return ev, nil
}

// valCountReader stops with io.EOF once max bytes were read and sets over
// when the input had more.
type valCountReader struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
}

func (c *valCountReader) Read(p []byte) (int, error) {
	if c.n >= c.max {
		var one [1]byte
		if n, _ := io.ReadFull(c.r, one[:]); n > 0 {
			c.over = true
		}
		return 0, io.EOF
	}
	if room := c.max - c.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// valReader holds the state of one ReadValidationReport call.
type valReader struct {
	sc    *jsonscan.Scanner
	facts *decide.ValidationFacts
	notes []string
	found bool // a key that makes this a validation report was read
}

func (vr *valReader) notef(format string, args ...any) {
	if len(vr.notes) < 20 {
		vr.notes = append(vr.notes, vr.sc.Name()+": "+fmt.Sprintf(format, args...))
	}
}

func (vr *valReader) read() error {
	s := vr.sc
	if err := s.BeginDoc("validation report"); err != nil {
		return err
	}
	if err := vr.readTop(0); err != nil {
		return err
	}
	if err := s.EndDoc("validation report"); err != nil {
		return err
	}
	if !vr.found {
		return s.Errorf(0, "no total_regressions, regressions, passed, checks or debt score found: not a validation report")
	}
	return nil
}

// valKey normalizes a key: lower case, '-' and ' ' as '_'.
func valKey(k []byte) string {
	return strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(string(k))))
}

// valCheckName maps a check key to its canonical name; "" if it is none.
func valCheckName(k string) string {
	switch k {
	case "tests", "test", "test_suite", "unit_tests", "test_check":
		return "tests"
	case "types", "type_check", "typecheck", "type_checking", "typescript":
		return "types"
	case "lint", "lint_check", "linting", "eslint":
		return "lint"
	case "quality", "quality_analysis", "quality_check":
		return "quality"
	}
	return ""
}

// readTop reads the members of the report object (the '{' next); depth
// counts wrappers such as validation_results.
func (vr *valReader) readTop(depth int) error {
	s := vr.sc
	f := vr.facts
	return s.Object("", "report", func(raw []byte) error {
		k := valKey(raw)
		switch {
		case k == "total_regressions" || k == "regressions":
			at := s.Off()
			n, ok, err := vr.count(k, true)
			if err != nil || !ok {
				return err
			}
			vr.found = true
			switch {
			case f.Regressions == nil:
				f.Regressions = &n
			case *f.Regressions != n:
				if k == "total_regressions" {
					vr.notef("byte %d: total_regressions %d differs from regressions %d; total_regressions used", at, n, *f.Regressions)
					f.Regressions = &n
				} else {
					vr.notef("byte %d: regressions %d differs from total_regressions %d; total_regressions used", at, n, *f.Regressions)
				}
			}
		case k == "passed" || k == "pass" || k == "success":
			b, ok, err := vr.boolean(k)
			if err != nil || !ok {
				return err
			}
			vr.found = true
			if f.Passed == nil {
				f.Passed = &b
			}
		case k == "checks" || k == "results":
			if err := vr.readChecks(k); err != nil {
				return err
			}
		case valCheckName(k) != "":
			if err := vr.readCheck(valCheckName(k), k); err != nil {
				return err
			}
		case k == "debt_score_before" || k == "debt_before" || k == "before_debt_score":
			if err := vr.setNumber(&f.DebtBefore, k); err != nil {
				return err
			}
		case k == "debt_score_after" || k == "debt_after" || k == "after_debt_score":
			if err := vr.setNumber(&f.DebtAfter, k); err != nil {
				return err
			}
		case k == "debt_score" || k == "debt":
			if err := vr.readDebt(k); err != nil {
				return err
			}
		case k == "improvement_percentage" || k == "improvement_percent" || k == "improvement_pct" || k == "improvement":
			if err := vr.setNumber(&f.Improvement, k); err != nil {
				return err
			}
		case (k == "validation_results" || k == "validation" || k == "report") && depth < 2:
			c, err := s.Next()
			if err != nil {
				return err
			}
			if c != '{' {
				return s.Skip(1)
			}
			return vr.readTop(depth + 1)
		default:
			return s.Skip(1)
		}
		return nil
	})
}

// readDebt reads debt_score as {before, after[, improvement]} or as a bare
// number (the score after).
func (vr *valReader) readDebt(k string) error {
	s := vr.sc
	f := vr.facts
	c, err := s.Next()
	if err != nil {
		return err
	}
	if c != '{' {
		var v *float64
		if err := vr.setNumber(&v, k); err != nil || v == nil {
			return err
		}
		if f.DebtAfter == nil {
			f.DebtAfter = v
			vr.notef("%s is a single number; read as the debt score after", k)
		}
		return nil
	}
	return s.Object(k, "", func(raw []byte) error {
		switch m := valKey(raw); m {
		case "before":
			return vr.setNumber(&f.DebtBefore, k+".before")
		case "after":
			return vr.setNumber(&f.DebtAfter, k+".after")
		case "improvement", "improvement_percentage", "improvement_percent":
			return vr.setNumber(&f.Improvement, k+"."+m)
		}
		return s.Skip(2)
	})
}

// readChecks reads a checks object (name → check) or array of checks with
// a name.
func (vr *valReader) readChecks(k string) error {
	s := vr.sc
	c, err := s.Next()
	if err != nil {
		return err
	}
	switch c {
	case 'n':
		_, err := s.Literal()
		return err
	case '[':
		return s.Array(k, "", func(int) error { return vr.readNamedCheck(k) })
	case '{':
		return s.Object(k, "", func(raw []byte) error {
			m := valKey(raw)
			name := valCheckName(m)
			if name == "" {
				vr.notef("unknown check %q in %s ignored", jsonscan.Cap(m, 40), k)
				return s.Skip(2)
			}
			return vr.readCheck(name, k+"."+m)
		})
	}
	return s.Errorf(s.Off(), "%s: expected an object or array of checks, found %s", k, jsonscan.Kind(c))
}

// readNamedCheck reads {"name": "tests", "status": ...} from a checks
// array.
func (vr *valReader) readNamedCheck(k string) error {
	s := vr.sc
	at := s.Off()
	chk, name, err := vr.checkObject(k + "[]")
	if err != nil {
		return err
	}
	canon := valCheckName(valKey([]byte(name)))
	if canon == "" {
		vr.notef("byte %d: unknown check %q in %s ignored", at, jsonscan.Cap(name, 40), k)
		return nil
	}
	vr.store(chk.finish(canon), at)
	return nil
}

// readCheck reads one check value under its key.
func (vr *valReader) readCheck(name, k string) error {
	s := vr.sc
	c, err := s.Next()
	if err != nil {
		return err
	}
	at := s.Off()
	chk := &decide.Check{Name: name}
	switch {
	case c == 'n':
		_, err := s.Literal()
		return err
	case c == '{':
		vc, _, err := vr.checkObject(k)
		if err != nil {
			return err
		}
		chk = vc.finish(name)
	case c == '"':
		if chk.Status, err = s.StringVal(k, "", 64); err != nil {
			return err
		}
	case c == 't' || c == 'f':
		b, _, err := vr.boolean(k)
		if err != nil {
			return err
		}
		chk.Status = valPassFail(b)
	default:
		n, _, err := vr.count(k, false)
		if err != nil {
			return err
		}
		chk.Failed = n
	}
	vr.store(chk, at)
	return nil
}

func valPassFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// valCountKeys are the keys of a check's failure count, most specific
// first.
var valCountKeys = []string{"regressions", "failed", "failures", "failed_count", "failures_count", "errors", "error_count", "errors_count", "issues", "issue_count", "count"}

// valCheck is a check as read, with the errors count a tests check adds to
// its failures (JUnit counts errors as failed tests).
type valCheck struct {
	decide.Check
	Errors int
}

// checkObject reads a check object: status (or passed), counts, total and,
// in a checks array, its name.
func (vr *valReader) checkObject(k string) (*valCheck, string, error) {
	s := vr.sc
	chk := &valCheck{}
	var name string
	counts := map[string]int{}
	var passed *bool
	err := s.Object(k, "", func(raw []byte) error {
		var err error
		m := valKey(raw)
		switch {
		case m == "status" || m == "result" || m == "state":
			chk.Status, err = s.StringVal(k+".", m, 64)
		case m == "name" || m == "check" || m == "id":
			name, err = s.StringVal(k+".", m, 64)
		case m == "passed" || m == "pass" || m == "success":
			var b, ok bool
			if b, ok, err = vr.boolean(k + "." + m); ok {
				passed = &b
			}
		case m == "total" || m == "total_tests" || m == "total_count":
			var n int
			var ok bool
			if n, ok, err = vr.count(k+"."+m, false); ok && chk.Total == nil {
				chk.Total = &n
			}
		case valIsCountKey(m):
			var n int
			var ok bool
			if n, ok, err = vr.count(k+"."+m, false); ok {
				counts[m] = n
			}
		default:
			err = s.Skip(3)
		}
		return err
	})
	if err != nil {
		return nil, "", err
	}
	for _, ck := range valCountKeys {
		if n, ok := counts[ck]; ok {
			chk.Failed = n
			if ck == "failed" || ck == "failures" {
				chk.Errors = counts["errors"]
			}
			break
		}
	}
	if chk.Status == "" && passed != nil {
		chk.Status = valPassFail(*passed)
	}
	return chk, name, nil
}

// finish names the check; a tests check counts its errors as failures.
func (c *valCheck) finish(name string) *decide.Check {
	chk := c.Check
	chk.Name = name
	if name == "tests" {
		chk.Failed += c.Errors
	}
	return &chk
}

func valIsCountKey(m string) bool {
	for _, k := range valCountKeys {
		if m == k {
			return true
		}
	}
	return false
}

// store files a check under its name; the first of a name wins.
func (vr *valReader) store(chk *decide.Check, at int64) {
	f := vr.facts
	slot := map[string]**decide.Check{"tests": &f.Tests, "types": &f.Types, "lint": &f.Lint, "quality": &f.Quality}[chk.Name]
	if slot == nil {
		return
	}
	vr.found = true
	if *slot != nil {
		vr.notef("byte %d: check %s given twice; the first is used", at, chk.Name)
		return
	}
	*slot = chk
	if chk.Failed == 0 && chk.Name != "quality" && valFailing(chk.Status) {
		vr.notef("byte %d: check %s has status %q but no failure count", at, chk.Name, chk.Status)
	}
}

// valFailing reports whether a status word says the check failed.
func valFailing(status string) bool {
	switch strings.ToLower(strings.TrimSpace(status)) {
	case "fail", "failed", "failure", "error", "errors", "regression", "regressions":
		return true
	}
	return false
}

// number reads a finite number: a JSON number, or a string holding one
// (a trailing % is allowed); ok is false for null.
func (vr *valReader) number(k string) (v float64, ok bool, err error) {
	s := vr.sc
	c, err := s.Next()
	if err != nil {
		return 0, false, err
	}
	at := s.Off()
	var text string
	switch {
	case c == 'n':
		_, err := s.Literal()
		return 0, false, err
	case c == '"':
		if text, err = s.StringVal(k, "", 64); err != nil {
			return 0, false, err
		}
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "%"))
		if text == "" {
			return 0, false, nil
		}
	case c == '-' || c >= '0' && c <= '9':
		b, err := s.Number()
		if err != nil {
			return 0, false, err
		}
		text = string(b)
	default:
		return 0, false, s.Errorf(at, "%s: expected a number, found %s", k, jsonscan.Kind(c))
	}
	v, perr := strconv.ParseFloat(text, 64)
	if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, s.Errorf(at, "%s: %q is not a finite number", k, jsonscan.Cap(text, 40))
	}
	return v, true, nil
}

// setNumber reads a number into *dst unless one was read before.
func (vr *valReader) setNumber(dst **float64, k string) error {
	v, ok, err := vr.number(k)
	if err != nil || !ok {
		return err
	}
	vr.found = true
	if *dst == nil {
		*dst = &v
	}
	return nil
}

// count reads a non-negative whole count. With list set, an array counts
// its elements and an object gives its "total" (else the sum of its
// counts).
func (vr *valReader) count(k string, list bool) (n int, ok bool, err error) {
	s := vr.sc
	c, err := s.Next()
	if err != nil {
		return 0, false, err
	}
	at := s.Off()
	switch {
	case list && c == '[':
		err := s.Array(k, "", func(int) error {
			n++
			return s.Skip(2)
		})
		if err != nil {
			return 0, false, err
		}
		vr.notef("byte %d: %s is a list; its %d entries are counted", at, k, n)
		return n, true, nil
	case list && c == '{':
		sum, total := 0, -1
		err := s.Object(k, "", func(raw []byte) error {
			m := valKey(raw)
			v, ok, err := vr.count(k+"."+m, false)
			switch {
			case err != nil || !ok:
				return err
			case m == "total":
				total = v
			default:
				sum += v
			}
			return nil
		})
		if err != nil {
			return 0, false, err
		}
		if total >= 0 {
			return total, true, nil
		}
		return sum, true, nil
	}
	v, ok, err := vr.number(k)
	if err != nil || !ok {
		return 0, ok, err
	}
	if v < 0 || v != math.Trunc(v) || v > 1e9 {
		return 0, false, s.Errorf(at, "%s: %v is not a count (a whole number from 0 to 1e9)", k, v)
	}
	return int(v), true, nil
}

// boolean reads true/false, or the strings "true"/"false"; ok is false for
// null.
func (vr *valReader) boolean(k string) (b, ok bool, err error) {
	s := vr.sc
	c, err := s.Next()
	if err != nil {
		return false, false, err
	}
	at := s.Off()
	switch c {
	case 't', 'f', 'n':
		w, err := s.Literal()
		if err != nil {
			return false, false, err
		}
		return w == "true", w != "null", nil
	case '"':
		t, err := s.StringVal(k, "", 16)
		if err != nil {
			return false, false, err
		}
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "true", "yes", "pass", "passed":
			return true, true, nil
		case "false", "no", "fail", "failed":
			return false, true, nil
		}
		return false, false, s.Errorf(at, "%s: %q is not a boolean", k, t)
	}
	return false, false, s.Errorf(at, "%s: expected a boolean, found %s", k, jsonscan.Kind(c))
}

// isValidationReport reports whether the head of a file looks like a
// validation report: a JSON object with total_regressions, a debt score or
// improvement percentage, the type_check and lint_check checks, or
// regressions beside checks or passed.
func isValidationReport(head []byte) bool {
	h, ok := jsonObjectHead(head)
	if !ok {
		return false
	}
	has := func(k string) bool { return valHasKey(h, k) }
	switch {
	case has("total_regressions"), has("debt_score_before"), has("debt_score_after"), has("improvement_percentage"):
		return true
	case has("type_check") && has("lint_check"):
		return true
	case has("regressions") && (has("checks") || has("passed")):
		return !has("runs") // not a SARIF log
	}
	return false
}

// valHasKey reports whether "key" occurs followed by a colon.
func valHasKey(h []byte, key string) bool {
	q := []byte(`"` + key + `"`)
	for i := 0; ; {
		j := bytes.Index(h[i:], q)
		if j < 0 {
			return false
		}
		rest := bytes.TrimLeft(h[i+j+len(q):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return true
		}
		i += j + len(q)
	}
}
