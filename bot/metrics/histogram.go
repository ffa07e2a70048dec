package metrics

import (
	"math"
	"sync/atomic"
)

// histogramVec is a histogram family with fixed buckets; a series appears
// at its first observation.
type histogramVec struct {
	name, help string
	bounds     []float64 // upper bounds, ascending; +Inf is implied
	v          vec[histSeries]
}

// histSeries holds one series' observations: per bucket (not cumulative;
// the last is above every bound) and their sum.
type histSeries struct {
	counts []atomic.Uint64
	sum    atomic.Uint64 // float64 bits
}

func newHistogramVec(name, help string, bounds []float64, labels ...string) *histogramVec {
	h := &histogramVec{name: name, help: help, bounds: bounds}
	h.v = vec[histSeries]{labels: labels, init: func(s *histSeries) {
		s.counts = make([]atomic.Uint64, len(bounds)+1)
	}}
	return h
}

// observe adds x to the series of values.
func (h *histogramVec) observe(x float64, values ...string) {
	s := h.v.with(values...)
	i := 0
	for i < len(h.bounds) && !(x <= h.bounds[i]) { // NaN goes to +Inf
		i++
	}
	s.counts[i].Add(1)
	for {
		old := s.sum.Load()
		if s.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+x)) {
			return
		}
	}
}

func (h *histogramVec) names() []string { return []string{h.name} }

// collect reads each series' buckets cumulatively; its count is the +Inf
// bucket's, so the two agree even while observations go on.
func (h *histogramVec) collect(out []family) []family {
	f := family{name: h.name, help: h.help, kind: histogram, labels: h.v.labels, bounds: h.bounds}
	h.v.each(func(values []string, s *histSeries) {
		at := make([]float64, len(h.bounds))
		var n uint64
		for i := range h.bounds {
			n += s.counts[i].Load()
			at[i] = float64(n)
		}
		n += s.counts[len(h.bounds)].Load()
		f.samples = append(f.samples, sample{values: values, at: at, count: n, sum: math.Float64frombits(s.sum.Load())})
	})
	return append(out, f)
}
