package action

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGatherReadsTheStateAndIssueInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        map[string]string
		wantKey   string
		wantLogin string
		wantMax   *int
		wantErr   string
	}{
		{name: "none given", in: map[string]string{}},
		{name: "all given", in: map[string]string{"state-key": "k", "bot-login": "my-app[bot]", "max-issues": "25"},
			wantKey: "k", wantLogin: "my-app[bot]", wantMax: ptr(25)},
		{name: "a bot-login that is no login", in: map[string]string{"bot-login": "@evil app"}, wantErr: `input bot-login: "@evil app": want a GitHub login`},
		{name: "max-issues 0", in: map[string]string{"max-issues": "0"}, wantErr: "input max-issues: 0: want 1–100"},
		{name: "max-issues not a number", in: map[string]string{"max-issues": "ten"}, wantErr: `input max-issues: "ten": want an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, err := Gather(inputs(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.StateKey != tt.wantKey || o.BotLogin != tt.wantLogin {
				t.Errorf("state-key %q bot-login %q, want %q %q", o.StateKey, o.BotLogin, tt.wantKey, tt.wantLogin)
			}
			if diff := cmp.Diff(tt.wantMax, o.Overrides.MaxIssues); diff != "" {
				t.Errorf("max-issues (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
