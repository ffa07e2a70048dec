package server

import (
	"strconv"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/bot/store"
)

// Budget is how the bot spends GitHub's limits.
type Budget struct {
	// Writes are each installation's limits on content-creating requests,
	// kept by all replicas together.
	Writes store.PaceLimits
	// ConfigCache is how many repository configuration files a replica
	// keeps for revalidation.
	ConfigCache int
}

// gatherBudget reads GCLOOP_GITHUB_WRITES_PER_MINUTE, _PER_HOUR and
// GCLOOP_CONFIG_CACHE through v, reporting mistakes to bad.
func gatherBudget(v func(string) string, bad func(format string, args ...any)) Budget {
	b := Budget{
		Writes:      store.PaceLimits{PerMinute: store.DefaultPerMinute, PerHour: store.DefaultPerHour},
		ConfigCache: ghclient.DefaultContentCacheEntries,
	}
	number := func(name string, lo, hi int, into *int) {
		s := v(name)
		if s == "" {
			return
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			bad("%s %q: want a number from %d to %d", name, s, lo, hi)
			return
		}
		*into = n
	}
	number("GCLOOP_GITHUB_WRITES_PER_MINUTE", 1, 10000, &b.Writes.PerMinute)
	number("GCLOOP_GITHUB_WRITES_PER_HOUR", 1, 100000, &b.Writes.PerHour)
	number("GCLOOP_CONFIG_CACHE", 1, 1000000, &b.ConfigCache)
	if b.Writes.PerHour < b.Writes.PerMinute {
		bad("GCLOOP_GITHUB_WRITES_PER_HOUR %d is less than GCLOOP_GITHUB_WRITES_PER_MINUTE %d", b.Writes.PerHour, b.Writes.PerMinute)
	}
	return b
}
