package report

import (
	"fmt"
	"github.com/gcloop/gcloop/decide"
	"math"
	"strconv"
	"strings"
)

// chartSeries describes the figure a loop tracks across rounds: the review
// or audit score, the coverage percentage, the validation regressions or
// the critique's blocking findings.
type chartSeries struct {
	label    string  // column header and y-axis title
	min, max float64 // fixed y-axis range; max < min means from the data
	value    func(decide.RoundRecord) (float64, bool)
}

// chartSeriesOf returns the tracked figure of a loop.
func chartSeriesOf(l decide.Loop) chartSeries {
	ptr := func(p *float64) (float64, bool) {
		if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
			return 0, false
		}
		return *p, true
	}
	switch l {
	case decide.Review:
		return chartSeries{"score", 1, 10, func(r decide.RoundRecord) (float64, bool) { return ptr(r.Score) }}
	case decide.Audit:
		return chartSeries{"score", 0, 10, func(r decide.RoundRecord) (float64, bool) { return ptr(r.Score) }}
	case decide.Coverage:
		return chartSeries{"coverage %", 0, 100, func(r decide.RoundRecord) (float64, bool) { return ptr(r.Coverage) }}
	case decide.Validation:
		return chartSeries{"regressions", 0, -1, func(r decide.RoundRecord) (float64, bool) {
			if r.Regressions == nil {
				return 0, false
			}
			return float64(*r.Regressions), true
		}}
	}
	return chartSeries{"blocking", 0, -1, func(r decide.RoundRecord) (float64, bool) {
		return float64(r.Counts.Blocking()), true
	}}
}

// chartRender draws the trend of a loop's figure over rounds as a mermaid
// xychart-beta line chart, or returns "" when fewer than two rounds have a
// value. Rounds without a value are left out (mermaid lines have no gaps).
// The output holds only numbers and fixed words, so it needs no escaping.
func chartRender(l decide.Loop, id string, rounds []decide.RoundRecord) string {
	s := chartSeriesOf(l)
	var xs []string
	var ys []string
	hi := 0.0
	for _, r := range rounds {
		v, ok := s.value(r)
		if !ok {
			continue
		}
		xs = append(xs, strconv.Quote(strconv.Itoa(r.N)))
		ys = append(ys, chartNum(v))
		hi = math.Max(hi, v)
	}
	if len(ys) < 2 {
		return ""
	}
	lo, top := s.min, s.max
	if top < lo {
		top = math.Max(1, math.Ceil(hi))
	}
	// Only a loop id that is safe in a quoted mermaid string goes into
	// the title; the loop name always is.
	name := string(l)
	if decide.ValidID(id) {
		name = id
	}
	var b strings.Builder
	b.WriteString("```mermaid\nxychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s: %s per round\"\n", name, s.label)
	fmt.Fprintf(&b, "    x-axis \"round\" [%s]\n", strings.Join(xs, ", "))
	fmt.Fprintf(&b, "    y-axis \"%s\" %s --> %s\n", s.label, chartNum(lo), chartNum(top))
	fmt.Fprintf(&b, "    line [%s]\n", strings.Join(ys, ", "))
	b.WriteString("```\n")
	return b.String()
}

// chartNum formats a value the way mermaid's number token reads it: plain
// decimal, no exponent, at most two decimals.
func chartNum(v float64) string {
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	if s == "-0" {
		return "0"
	}
	return s
}
