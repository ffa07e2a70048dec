package metrics

import (
	"strconv"
	"time"
)

// Pacing holds the metrics of the GitHub pacer (bot/ghclient's Pacer):
// how often and how long requests waited for their installation's budget,
// and the rate limits recorded as blocks. Its methods have the signatures
// of ghclient.Options' OnWait and OnBlock.
type Pacing struct {
	waits  *histogramVec
	blocks *histogramVec
}

// paceBuckets span a request's wait for its budget: from a moment to the
// hour of GitHub's hourly limit.
var paceBuckets = []float64{.1, 1, 5, 15, 60, 300, 900, 3600}

// Pacing registers the pacer's metrics and returns them; call it once.
func (m *Metrics) Pacing() *Pacing {
	p := &Pacing{
		waits: newHistogramVec("gcloop_github_pace_wait_seconds",
			"Waits of this replica's GitHub requests for their installation's budget (writes) or for a rate limit's block to end (reads and writes), by installation and request kind: the count is the waits, the sum the time waited.",
			paceBuckets, "installation", "request"),
		blocks: newHistogramVec("gcloop_github_blocked_seconds",
			"Rate limits this replica saw and recorded as a block of the installation's requests on every replica, by installation, by the wait GitHub asked for: the count is the blocks, the sum the time blocked.",
			paceBuckets, "installation"),
	}
	m.reg.register(p.waits, p.blocks)
	return p
}

// Wait counts a request of installation that waited d; write is true for
// a content-creating request.
func (p *Pacing) Wait(installation int64, write bool, d time.Duration) {
	kind := "read"
	if write {
		kind = "write"
	}
	p.waits.observe(d.Seconds(), strconv.FormatInt(installation, 10), kind)
}

// Block counts a block of installation's requests for d.
func (p *Pacing) Block(installation int64, d time.Duration) {
	p.blocks.observe(d.Seconds(), strconv.FormatInt(installation, 10))
}

// ConfigReads exports the repository configuration's reads (stats, read
// at each scrape: ghclient.ContentCache's Stats) as
// gcloop_github_config_reads_total by result: not_modified (a 304, no
// quota spent) or fetched.
func (m *Metrics) ConfigReads(stats func() (notModified, fetched int64)) {
	m.reg.register(configReads{stats: stats})
}

type configReads struct {
	stats func() (notModified, fetched int64)
}

const configReadsName = "gcloop_github_config_reads_total"

func (configReads) names() []string { return []string{configReadsName} }

func (c configReads) collect(out []family) []family {
	notModified, fetched := c.stats()
	return append(out, family{name: configReadsName, kind: counter, labels: []string{"result"},
		help: "Reads of repository configuration files by this replica, by result: not_modified (revalidated with If-None-Match; GitHub answered 304, which costs no quota) or fetched.",
		samples: []sample{
			{values: []string{"fetched"}, value: float64(fetched)},
			{values: []string{"not_modified"}, value: float64(notModified)},
		}})
}
