// Package report owns gcloop's report comment on a pull request: the
// Markdown of a decision, the comment body that carries the loop's state
// in a hidden marker, and finding and trusting that comment among a pull
// request's comments.
//
//   - Markdown renders a decision for people: the heading says the
//     decision, the next line why, the third what happens next; then the
//     figures, each finding once, the tasks, the loop's own tables, and the
//     long parts (history and trend, reasoning) folded in <details>. The
//     job summary, the check run, report.md and `gcloop decide` show it.
//   - Body is the comment: Header first, the same report compacted to fit
//     GitHub's comment limit (CommentLimit, CheckSize), and the state —
//     compacted to StateBudget (CompactState) and sealed (Seal) — as the
//     last line, never cut. ReplaceState swaps the state of an existing
//     comment.
//   - FindState finds the loop's comment and decodes its state (Marker,
//     ParseMarker); Swap writes it with a compare-and-swap on the comment
//     as it was read (ErrConflict when it changed meanwhile).
//   - EscapeInline and EscapeBlock make artifact text safe in GitHub
//     Markdown, for the report and for anything else gcloop writes.
//
// Trust: the state is read only from comments written by gcloop's own
// identity (compared case-insensitively and exactly — "gcloop[bot]" and
// "gcloop" are different accounts, so no "[bot]" suffix is added or
// removed), shaped as gcloop renders them (Header first, the state marker
// last) and, with a state-key, signed (Seal). github-actions[bot] is shared
// by every workflow of a repository, so the login alone is no proof.
package report
