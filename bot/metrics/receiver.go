package metrics

// Unverified exports the webhook receiver's bytes of bodies whose
// signature is not yet checked (held, read at each scrape) and the most it
// holds at once (max).
func (m *Metrics) Unverified(held func() int64, max int64) {
	m.reg.register(
		funcMetric{name: "gcloop_webhook_unverified_bytes", kind: gauge,
			help:  "Bytes of webhook bodies held before their signature is checked, in memory and spool files, on this replica.",
			value: func() float64 { return float64(held()) }},
		funcMetric{name: "gcloop_webhook_unverified_max_bytes", kind: gauge,
			help:  "The most bytes of webhook bodies held before their signature is checked (GCLOOP_WEBHOOK_UNVERIFIED); a body that finds no room is answered 503.",
			value: func() float64 { return float64(max) }})
}
