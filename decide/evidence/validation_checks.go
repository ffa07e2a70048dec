package evidence

// The checks of a validation report: tests, types, lint and quality.

import (
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
)

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
