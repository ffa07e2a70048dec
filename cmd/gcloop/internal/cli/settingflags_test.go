package cli

import (
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/config"
)

func TestSettingFlags(t *testing.T) {
	t.Parallel()
	four, half, zero, l2 := 4, 8.5, 0, "l2"
	tests := []struct {
		name string
		args []string
		want config.Overrides
	}{
		{"no flag gives nothing", nil, config.Overrides{}},
		{"each flag gives its setting", []string{"--max-rounds", "4", "--threshold=8.5", "--layer", "l2", "--stall", "0"},
			config.Overrides{MaxRounds: &four, Threshold: &half, Layer: &l2, Stall: &zero}},
		{"a zero given is given", []string{"--target", "0"}, config.Overrides{Target: new(float64)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("decide", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			got := settingFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got()); diff != "" {
				t.Errorf("overrides (-want +got):\n%s", diff)
			}
		})
	}
}

// Every setting declared with a flag help has its flag, and no other.
func TestSettingFlagsAreTheDeclaredOnes(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("decide", flag.ContinueOnError)
	settingFlags(fs)
	for _, st := range config.All() {
		f := fs.Lookup(st.Name)
		switch {
		case st.Flag == "" && f != nil:
			t.Errorf("setting %s has a flag, but declares no flag help", st.Name)
		case st.Flag != "" && (f == nil || f.Usage != st.Flag):
			t.Errorf("setting %s: flag %+v, want one with the help %q", st.Name, f, st.Flag)
		}
	}
}
