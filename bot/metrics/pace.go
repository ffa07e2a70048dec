package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Pacing holds the metrics of the GitHub pacer (bot/ghclient's Pacer):
// how often and how long requests waited for their installation's budget,
// and the rate limits recorded as blocks. Its methods have the signatures
// of ghclient.Options' OnWait and OnBlock.
type Pacing struct {
	waits  *prometheus.HistogramVec
	blocks *prometheus.HistogramVec
}

// paceBuckets span a request's wait for its budget: from a moment to the
// hour of GitHub's hourly limit.
var paceBuckets = []float64{.1, 1, 5, 15, 60, 300, 900, 3600}

// Pacing registers the pacer's metrics and returns them; call it once.
func (m *Metrics) Pacing() *Pacing {
	p := &Pacing{
		waits: histogramVec("gcloop_github_pace_wait_seconds",
			"Waits of this replica's GitHub requests for their installation's budget (writes) or for a rate limit's block to end (reads and writes), by installation and request kind: the count is the waits, the sum the time waited.",
			paceBuckets, "installation", "request"),
		blocks: histogramVec("gcloop_github_blocked_seconds",
			"Rate limits this replica saw and recorded as a block of the installation's requests on every replica, by installation, by the wait GitHub asked for: the count is the blocks, the sum the time blocked.",
			paceBuckets, "installation"),
	}
	m.reg.MustRegister(p.waits, p.blocks)
	return p
}

// Wait counts a request of installation that waited d; write is true for
// a content-creating request.
func (p *Pacing) Wait(installation int64, write bool, d time.Duration) {
	kind := "read"
	if write {
		kind = "write"
	}
	p.waits.WithLabelValues(strconv.FormatInt(installation, 10), kind).Observe(d.Seconds())
}

// Block counts a block of installation's requests for d.
func (p *Pacing) Block(installation int64, d time.Duration) {
	p.blocks.WithLabelValues(strconv.FormatInt(installation, 10)).Observe(d.Seconds())
}

// ConfigReads exports the repository configuration's reads (stats, read
// at each scrape: ghclient.ContentCache's Stats) as
// gcloop_github_config_reads_total by result: not_modified (a 304, no
// quota spent) or fetched.
func (m *Metrics) ConfigReads(stats func() (notModified, fetched int64)) {
	m.reg.MustRegister(configReads{stats: stats})
}

// configReads reads both results' counts with one call of stats.
type configReads struct {
	stats func() (notModified, fetched int64)
}

var configReadsDesc = prometheus.NewDesc("gcloop_github_config_reads_total",
	"Reads of repository configuration files by this replica, by result: not_modified (revalidated with If-None-Match; GitHub answered 304, which costs no quota) or fetched.",
	[]string{"result"}, nil)

func (configReads) Describe(ch chan<- *prometheus.Desc) { ch <- configReadsDesc }

func (c configReads) Collect(ch chan<- prometheus.Metric) {
	notModified, fetched := c.stats()
	ch <- prometheus.MustNewConstMetric(configReadsDesc, prometheus.CounterValue, float64(fetched), "fetched")
	ch <- prometheus.MustNewConstMetric(configReadsDesc, prometheus.CounterValue, float64(notModified), "not_modified")
}
