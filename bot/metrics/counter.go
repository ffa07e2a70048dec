package metrics

import "sync/atomic"

// counterVec is a counter family; a series appears at its first
// increment (with no labels, call with() once to show it at 0).
type counterVec struct {
	name, help string
	v          vec[atomic.Uint64]
}

func newCounterVec(name, help string, labels ...string) *counterVec {
	return &counterVec{name: name, help: help, v: vec[atomic.Uint64]{labels: labels}}
}

// inc adds one to the series of values.
func (c *counterVec) inc(values ...string) { c.v.with(values...).Add(1) }

func (c *counterVec) names() []string { return []string{c.name} }

func (c *counterVec) collect(out []family) []family {
	f := family{name: c.name, help: c.help, kind: counter, labels: c.v.labels}
	c.v.each(func(values []string, n *atomic.Uint64) {
		f.samples = append(f.samples, sample{values: values, value: float64(n.Load())})
	})
	return append(out, f)
}

// funcMetric is a counter or a gauge without labels whose value is read
// at each scrape.
type funcMetric struct {
	name, help string
	kind       kind
	value      func() float64
}

func (m funcMetric) names() []string { return []string{m.name} }

func (m funcMetric) collect(out []family) []family {
	return append(out, family{name: m.name, help: m.help, kind: m.kind, samples: []sample{{value: m.value()}}})
}
