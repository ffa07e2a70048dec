package evidence

// The values of a validation report: numbers, counts and booleans.

import (
	"math"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/internal/jsonscan"
)

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
