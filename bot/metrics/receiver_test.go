package metrics

import "testing"

func TestUnverifiedGauges(t *testing.T) {
	t.Parallel()
	m := New()
	held := int64(0)
	m.Unverified(func() int64 { return held }, 64<<20)
	for _, h := range []int64{0, 12345} {
		held = h
		fams := parse(t, get(t, m))
		for name, want := range map[string]float64{
			"gcloop_webhook_unverified_bytes":     float64(h),
			"gcloop_webhook_unverified_max_bytes": 64 << 20,
		} {
			f, ok := fams[name]
			if !ok || len(f.GetMetric()) != 1 {
				t.Fatalf("%s missing", name)
			}
			if f.GetType().String() != "GAUGE" || f.GetHelp() == "" {
				t.Errorf("%s: type %s, help %q; want a gauge with help", name, f.GetType(), f.GetHelp())
			}
			if got := f.GetMetric()[0].GetGauge().GetValue(); got != want {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
	}
}
