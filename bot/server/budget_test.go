package server

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/store"
)

func TestGatherBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want Budget
		errs []string
	}{
		{"GitHub's secondary limits by default", nil,
			Budget{Writes: store.PaceLimits{PerMinute: 80, PerHour: 500}, ConfigCache: 2048}, nil},
		{"every setting", map[string]string{"GCLOOP_GITHUB_WRITES_PER_MINUTE": "40", "GCLOOP_GITHUB_WRITES_PER_HOUR": "300", "GCLOOP_CONFIG_CACHE": "100"},
			Budget{Writes: store.PaceLimits{PerMinute: 40, PerHour: 300}, ConfigCache: 100}, nil},
		{"words and zeros are mistakes", map[string]string{"GCLOOP_GITHUB_WRITES_PER_MINUTE": "many", "GCLOOP_GITHUB_WRITES_PER_HOUR": "0", "GCLOOP_CONFIG_CACHE": "-1"},
			Budget{}, []string{`GCLOOP_GITHUB_WRITES_PER_MINUTE "many": want a number from 1 to 10000`,
				`GCLOOP_GITHUB_WRITES_PER_HOUR "0": want a number from 1 to 100000`, `GCLOOP_CONFIG_CACHE "-1": want a number from 1 to 1000000`}},
		{"an hour's limit below a minute's", map[string]string{"GCLOOP_GITHUB_WRITES_PER_MINUTE": "90", "GCLOOP_GITHUB_WRITES_PER_HOUR": "60"},
			Budget{}, []string{"GCLOOP_GITHUB_WRITES_PER_HOUR 60 is less than GCLOOP_GITHUB_WRITES_PER_MINUTE 90"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var errs []string
			got := gatherBudget(func(k string) string { return tt.env[k] }, func(format string, args ...any) {
				errs = append(errs, fmt.Sprintf(format, args...))
			})
			if diff := cmp.Diff(tt.errs, errs); diff != "" {
				t.Errorf("mistakes (-want +got):\n%s", diff)
			}
			if tt.errs == nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("budget (-want +got):\n%s", diff)
				}
			}
		})
	}
}
