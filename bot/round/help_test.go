package round_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/round"
)

// TestEngineHelpOnce runs `/gc halp` twice, as a redelivery or a re-run
// of the workflow would: the first run replies once with the commands and
// the configured permission; the second finds the marked reply and posts
// nothing.
func TestEngineHelpOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config string
		opts         round.Options
		who          string
	}{
		{"the driver's loop", "review:\n  commands:\n    permission: maintain\n", round.Options{ID: "review"},
			"users with **maintain** or admin permission on the repository"},
		{"every configured loop", "review:\n  commands:\n    permission: admin\ncov:\n  loop: coverage\n", round.Options{},
			"users with **write**, maintain or admin permission for `cov`, the other loops; users with **admin** permission for `review`"},
		{"no configuration", "", round.Options{ID: "review"},
			"users with **write**, maintain or admin permission on the repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if tt.config != "" {
				w.gh.AddFile(owner, repo, "main", ".github/gcloop.yml", []byte(tt.config))
			}
			ev := w.comment("visitor", "please\n\n/gc halp")
			id := ev.Comment.GetComment().GetID()
			var posted []string
			for run := 1; run <= 2; run++ {
				from := len(w.gh.Requests())
				res, err := w.engine(ev, tt.opts).Command(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if res.Command == nil || !res.Command.Refused || res.Command.Command.Unknown != "halp" {
					t.Fatalf("run %d: command result %+v, want the mistyped command answered with the help", run, res.Command)
				}
				for _, r := range w.gh.Requests()[from:] {
					if r.Method == "POST" && r.Path == "/repos/octo/shop/issues/1/comments" {
						var body struct{ Body string }
						if err := json.Unmarshal(r.Body, &body); err != nil {
							t.Fatal(err)
						}
						posted = append(posted, body.Body)
					}
					if r.Method == "GET" && strings.HasSuffix(r.Path, "/permission") {
						t.Errorf("run %d: the help checked a permission: %s", run, r.Path)
					}
				}
				if len(posted) != 1 {
					t.Fatalf("after run %d: %d replies posted, want exactly 1", run, len(posted))
				}
			}
			for _, want := range []string{"@visitor 😕 “halp” is not a command.", "`/gc retry [loop]`", "`/gc help`", tt.who, "<!-- gcloop:reply " + itoa(id) + " -->"} {
				if !strings.Contains(posted[0], want) {
					t.Errorf("the reply lacks %q:\n%s", want, posted[0])
				}
			}
		})
	}
}
