package metrics

// Unverified exports the webhook receiver's bytes of bodies whose
// signature is not yet checked (held, read at each scrape) and the most it
// holds at once (max).
func (m *Metrics) Unverified(held func() int64, max int64) {
	m.reg.MustRegister(
		gaugeFunc("gcloop_webhook_unverified_bytes",
			"Bytes of webhook bodies held before their signature is checked, in memory and spool files, on this replica.",
			func() float64 { return float64(held()) }),
		gaugeFunc("gcloop_webhook_unverified_max_bytes",
			"The most bytes of webhook bodies held before their signature is checked (GCLOOP_WEBHOOK_UNVERIFIED); a body that finds no room is answered 503.",
			func() float64 { return float64(max) }))
}
