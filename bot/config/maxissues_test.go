package config

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

func TestMaxIssuesFromTheFileAndTheInput(t *testing.T) {
	t.Parallel()
	three, fifty := 3, 50
	tests := []struct {
		name    string
		file    string
		input   *int
		want    int
		wantErr string
	}{
		{name: "not set: 0, the default of the issue writer", file: "review:\n  issues: true\n"},
		{name: "the file sets it", file: "review:\n  max_issues: 3\n", want: 3},
		{name: "the input wins", file: "review:\n  max_issues: 3\n", input: &fifty, want: 50},
		{name: "the input alone", input: &three, want: 3},
		{name: "out of range in the file", file: "review:\n  max_issues: 0\n", wantErr: "max_issues"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var f *File
			if tt.file != "" {
				var err error
				f, err = Parse("gcloop.yml", strings.NewReader(tt.file))
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			s, err := Resolve(decide.Review, "review", f, Overrides{MaxIssues: tt.input})
			if err != nil {
				t.Fatal(err)
			}
			if s.MaxIssues != tt.want {
				t.Errorf("MaxIssues = %d, want %d", s.MaxIssues, tt.want)
			}
		})
	}
}
