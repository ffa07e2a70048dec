package metrics

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// vec maps label values to a series of type T, made on first use. The map
// is copied on write: the hot path, a series that exists, takes no lock,
// writes nothing shared and allocates nothing. Label values come from
// small sets, so copies are few and short.
type vec[T any] struct {
	labels []string
	init   func(*T)   // readies a new series; nil when T's zero value is ready
	mu     sync.Mutex // held to add a series
	series atomic.Pointer[map[string]*labelled[T]]
}

// labelled is a series and its label values.
type labelled[T any] struct {
	values []string
	s      T
}

// keySep joins label values into a map key. It cannot occur in valid
// UTF-8, which label values are (clip makes them so).
const keySep = 0xff

// with returns the series of values, making it if need be. values must be
// as many as the labels.
func (v *vec[T]) with(values ...string) *T {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: %d label values for labels %q", len(values), v.labels))
	}
	var buf [2*maxLabel + 16]byte
	key := buf[:0]
	for i, s := range values {
		if i > 0 {
			key = append(key, keySep)
		}
		key = append(key, s...)
	}
	if m := v.series.Load(); m != nil {
		if l := (*m)[string(key)]; l != nil {
			return &l.s
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	old := v.series.Load()
	if old != nil {
		if l := (*old)[string(key)]; l != nil {
			return &l.s
		}
	}
	l := &labelled[T]{values: slices.Clone(values)}
	if v.init != nil {
		v.init(&l.s)
	}
	m := map[string]*labelled[T]{}
	if old != nil {
		m = maps.Clone(*old)
	}
	m[string(key)] = l
	v.series.Store(&m)
	return &l.s
}

// each calls f with every series, in no order.
func (v *vec[T]) each(f func(values []string, s *T)) {
	m := v.series.Load()
	if m == nil {
		return
	}
	for _, l := range *m {
		f(l.values, &l.s)
	}
}
