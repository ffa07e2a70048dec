package round

import (
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/command"
	"github.com/gcloop/gcloop/bot/report"
	"github.com/gcloop/gcloop/decide"
)

func TestWithStatePutsTheBannerAfterTheHeader(t *testing.T) {
	t.Parallel()
	st := decide.NewState(decide.Review, "review", 3)
	old, err := report.Marker(st)
	if err != nil {
		t.Fatal(err)
	}
	next := decide.NewState(decide.Review, "review", 3)
	next.Status = decide.StateApproved
	top := banner(command.Command{Verb: command.Approve}, "lead", command.Effect{Reply: "Loop `review` approved."})
	scope := report.Scope{Owner: "o", Repo: "r", PR: 1}
	tests := []struct{ name, body string }{
		{"a report with its header", report.Header("review") + "## 🛑 gcloop review — ESCALATE\n\ntext\n" + old + "\n"},
		{"a report with an earlier banner", report.Header("review") + "<!-- gcloop:banner -->\n> old\n\n## 🛑 gcloop review — ESCALATE\n" + old + "\n"},
		{"a report from before the header", "<!-- gcloop:banner -->\n> old\n\n## 🛑 gcloop review — ESCALATE\n" + old + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := withState(tt.body, next, top, scope, []byte("k"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, report.Header("review")+top+"## ") || strings.Count(got, "gcloop:banner") != 1 {
				t.Errorf("want header, the new banner, then the report:\n%s", got)
			}
			found, err := report.ReplaceState(got, next, scope, []byte("k"))
			if err != nil || found != got {
				t.Errorf("the rewritten report is not in gcloop's shape (%v):\n%s", err, got)
			}
		})
	}
}
