package round_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gcloop/gcloop/bot/command"
	"github.com/gcloop/gcloop/bot/round"
	"github.com/gcloop/gcloop/decide"
	"github.com/google/go-github/v62/github"
)

// settable is a clock a test moves.
type settable struct {
	mu sync.Mutex
	t  time.Time
}

func (c *settable) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *settable) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// A command is read again before it acts: deleted, edited since the
// delivery, or older than the last command the loop applied, it is
// ignored — no reaction, no reply, no change to the loop.
func TestEngineIgnoresCommandsChangedOrOlderThanTheLastApplied(t *testing.T) {
	t.Parallel()
	const leadToken = "ghp_lead"
	tests := []struct {
		name string
		// before is done after the delivered comment is made and before
		// the command runs; it returns the event to run.
		before func(t *testing.T, w *world, clk *settable) round.Event
		want   string
	}{
		{"a deleted comment", func(t *testing.T, w *world, _ *settable) round.Event {
			ev := w.comment("lead", "/gc abort")
			if _, err := w.gh.Client(leadToken).Issues.DeleteComment(context.Background(), owner, repo, ev.Comment.GetComment().GetID()); err != nil {
				t.Fatal(err)
			}
			return ev
		}, command.IgnoredGone},
		{"a comment edited after the delivery", func(t *testing.T, w *world, clk *settable) round.Event {
			ev := w.comment("lead", "/gc abort")
			clk.set(clock.Add(time.Minute))
			body := "never mind"
			if _, _, err := w.gh.Client(leadToken).Issues.EditComment(context.Background(), owner, repo, ev.Comment.GetComment().GetID(), &github.IssueComment{Body: &body}); err != nil {
				t.Fatal(err)
			}
			return ev
		}, command.IgnoredEdited},
		{"a comment older than the command the loop applied last", func(t *testing.T, w *world, clk *settable) round.Event {
			older := w.comment("lead", "/gc approve")
			clk.set(clock.Add(time.Second))
			if res, err := w.engine(w.comment("lead", "/gc abort"), round.Options{ID: "review"}).Command(context.Background()); err != nil || res.Command.Refused {
				t.Fatalf("the newer /gc abort: %+v, %v", res, err)
			}
			return older
		}, command.IgnoredOlder},
		{"the applied command delivered again", func(t *testing.T, w *world, _ *settable) round.Event {
			ev := w.comment("lead", "/gc retry")
			if res, err := w.engine(ev, round.Options{ID: "review"}).Command(context.Background()); err != nil || res.Command.Refused {
				t.Fatalf("the first delivery: %+v, %v", res, err)
			}
			return ev
		}, command.IgnoredApplied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			clk := &settable{t: clock}
			w.gh.SetClock(clk.now)
			w.gh.AddToken(leadToken, "lead", false)
			w.gh.SetPermission(owner, repo, "lead", "write")
			w.run(t, evidence(t, "review"), round.Options{Comment: true}, 7)
			ev := tt.before(t, w, clk)
			report := w.gh.Comments(owner, repo, w.pr)[0].Body
			from := len(w.gh.Requests())
			res, err := w.engine(ev, round.Options{ID: "review", Check: true}).Command(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Command == nil || res.Command.Ignored != tt.want || res.Command.LoopID != "review" {
				t.Fatalf("command %+v, want ignored for %q on loop review", res.Command, tt.want)
			}
			if n := mutations(w.since(from)); n != 0 {
				t.Errorf("an ignored command wrote: %q", w.since(from))
			}
			if got := w.gh.Comments(owner, repo, w.pr)[0].Body; got != report {
				t.Error("an ignored command changed the report")
			}
		})
	}
}

// The action given to a command is when it was given: its comment's
// creation time, not when the delivery was worked.
func TestEngineRecordsTheCommandsTime(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.gh.SetPermission(owner, repo, "lead", "write")
	w.run(t, evidence(t, "review"), round.Options{Comment: true}, 7)
	given := clock.Add(-time.Hour)
	w.gh.SetClock(func() time.Time { return given })
	res, err := w.engine(w.comment("lead", "/gc abort"), round.Options{ID: "review"}).Command(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	acts := res.Command.State.Actions
	if len(acts) != 1 || !acts[0].At.Equal(given) || res.Command.State.Status != decide.StateAborted {
		t.Errorf("actions %+v, status %s; want the abort at %s", acts, res.Command.State.Status, given)
	}
}
