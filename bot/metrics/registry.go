package metrics

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// kind is a metric family's type, as the text format names it.
type kind uint8

const (
	counter kind = iota
	gauge
	histogram
	summary
)

func (k kind) String() string {
	switch k {
	case counter:
		return "counter"
	case gauge:
		return "gauge"
	case histogram:
		return "histogram"
	case summary:
		return "summary"
	}
	return "untyped"
}

// family is one metric family as read at a scrape.
type family struct {
	name, help string
	kind       kind
	labels     []string  // label names, in the order of each sample's values
	bounds     []float64 // histogram: upper bounds (+Inf left out); summary: quantiles
	samples    []sample
}

// sample is one series of a family: a value for a counter or a gauge; for
// a histogram, cumulative counts per bound, sum and count; for a summary,
// values per quantile, sum and count.
type sample struct {
	values []string // label values
	value  float64
	at     []float64 // per family.bounds
	sum    float64
	count  uint64
}

// collector yields families at each scrape. names are the families it
// yields, fixed when it is registered.
type collector interface {
	names() []string
	collect(out []family) []family
}

// registry is the set of collectors /metrics serves. It is safe for
// concurrent use.
type registry struct {
	mu         sync.Mutex
	collectors []collector
	taken      map[string]bool
}

// register adds collectors. A family name registered twice is a
// programming error: it panics.
func (r *registry) register(cs ...collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.taken == nil {
		r.taken = map[string]bool{}
	}
	for _, c := range cs {
		for _, n := range c.names() {
			if r.taken[n] {
				panic(fmt.Sprintf("metrics: %s registered twice", n))
			}
			r.taken[n] = true
		}
		r.collectors = append(r.collectors, c)
	}
}

// gather collects every family, sorted by name, with its samples sorted
// by label values. Families without samples are left out.
func (r *registry) gather() []family {
	r.mu.Lock()
	cs := slices.Clone(r.collectors)
	r.mu.Unlock()
	var out []family
	for _, c := range cs {
		out = c.collect(out)
	}
	out = slices.DeleteFunc(out, func(f family) bool { return len(f.samples) == 0 })
	slices.SortFunc(out, func(a, b family) int { return strings.Compare(a.name, b.name) })
	for _, f := range out {
		slices.SortFunc(f.samples, func(a, b sample) int { return slices.Compare(a.values, b.values) })
	}
	return out
}
