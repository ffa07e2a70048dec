package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
	"github.com/gcloop/gcloop/internal/lines"
	"github.com/gcloop/gcloop/internal/parse"
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
	cr := lines.NewCapReader(r, valMaxSize)
	vr := &valReader{
		sc:    jsonscan.New(name, cr, 16<<10),
		facts: &decide.ValidationFacts{},
	}
	ev := &decide.Evidence{Sources: []string{name}, Validation: vr.facts}
	err := vr.read()
	var ioErr *parse.Error
	switch {
	case cr.Over():
		err = parse.OffsetError(name, valMaxSize, "report larger than %d MiB", valMaxSize>>20)
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
