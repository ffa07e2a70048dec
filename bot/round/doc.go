// Package round is one round of a loop, the same for every driver: the
// CLI (`gcloop decide`, `gcloop run --dry-run`), the action (`gcloop run`)
// and the bot.
//
// A round is decided once (Decide: pure, from the event, the evidence, the
// state found in the report comment, the configuration and the clock) and
// carried out once (Engine.Run) through the narrow GitHub interface this
// package owns. Live implements it with go-github; a Recorder is the dry
// run: it reads nothing from the API and records the writes.
//
// The effects run in a fixed order, each idempotent, so that a re-run
// repairs what a cut-short run left undone:
//
//  1. the test-only fix commit (coverage loops), judged by the guard;
//  2. the fix issues (opened, updated, closed);
//  3. the dispatch of the next round;
//  4. the check run on the judged commit;
//  5. the report comment with the state — last, so the state records what
//     was done — with a compare-and-swap on the comment as it was read.
//
// When a /gc command or another run changed the report comment during the
// round, the round is decided again on the state as it is now and the
// effects are carried out from that plan (they converge: issues synced
// again, the same check run updated); the commit is pushed only after the
// comment was read again, and once. A workflow run older than the loop's
// last judged run decides nothing (ErrStaleRun).
//
// A failing effect is noted in the report and the round goes on (the
// decision is then partial); a GitHub API that is down before anything is
// written stops the round with a decision on the evidence alone.
package round
