package metrics

import (
	"math"
	"net/http"
	"strconv"
)

// contentType is Prometheus' text exposition format, version 0.0.4.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the metrics in Prometheus' text format (/metrics) to GET
// and HEAD; other methods get 405.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
		case http.MethodHead:
			w.Header().Set("Content-Type", contentType)
			return
		default:
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body := appendText(nil, m.reg.gather())
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body) // a scraper that hung up is no error of ours
	})
}

// appendText appends families in the text format: HELP, TYPE, then the
// samples, in the order given.
func appendText(b []byte, fams []family) []byte {
	for i := range fams {
		f := &fams[i]
		b = append(b, "# HELP "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = appendEscaped(b, f.help, false)
		b = append(b, "\n# TYPE "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = append(b, f.kind.String()...)
		b = append(b, '\n')
		for _, s := range f.samples {
			switch f.kind {
			case histogram, summary:
				b = appendSummed(b, f, s)
			default:
				b = appendSample(b, f.name, "", f.labels, s.values, "", "", s.value)
			}
		}
	}
	return b
}

// appendSummed appends a histogram's buckets (le, cumulative, +Inf last)
// or a summary's quantiles, then _sum and _count.
func appendSummed(b []byte, f *family, s sample) []byte {
	suffix, extra := "_bucket", "le"
	if f.kind == summary {
		suffix, extra = "", "quantile"
	}
	for i, bound := range f.bounds {
		b = appendSample(b, f.name, suffix, f.labels, s.values, extra, formatFloat(bound), s.at[i])
	}
	if f.kind == histogram {
		b = appendSample(b, f.name, suffix, f.labels, s.values, extra, "+Inf", float64(s.count))
	}
	b = appendSample(b, f.name, "_sum", f.labels, s.values, "", "", s.sum)
	return appendSample(b, f.name, "_count", f.labels, s.values, "", "", float64(s.count))
}

// appendSample appends one sample line: name and suffix, the labels
// (names with values, then extra=extraValue when extra is not empty) and
// the value.
func appendSample(b []byte, name, suffix string, names, values []string, extra, extraValue string, v float64) []byte {
	b = append(b, name...)
	b = append(b, suffix...)
	if len(names) > 0 || extra != "" {
		b = append(b, '{')
		for i, n := range names {
			b = appendLabel(b, n, values[i])
			b = append(b, ',')
		}
		if extra != "" {
			b = appendLabel(b, extra, extraValue)
			b = append(b, ',')
		}
		b[len(b)-1] = '}'
	}
	b = append(b, ' ')
	b = appendFloat(b, v)
	return append(b, '\n')
}

func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendEscaped(b, value, true)
	return append(b, '"')
}

// appendEscaped appends s with \ and newline escaped, and " too in a
// label value (quoted).
func appendEscaped(b []byte, s string, quoted bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quoted:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat appends v as Prometheus writes it: the shortest
// representation, +Inf, -Inf or NaN.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func formatFloat(v float64) string { return string(appendFloat(nil, v)) }
