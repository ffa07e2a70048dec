// Package publish writes a loop's decision to GitHub: the report comment
// that also carries the round state (DESIGN §4, §5.1), and the fix issues
// of a fix round (DESIGN §5.2).
//
// It talks to GitHub through two narrow interfaces that go-github v62's
// *github.IssuesService satisfies (commentsAPI and issuesAPI), so tests
// can run it against an httptest server with a real client or against a
// small recording fake. Every mutation is made one at a time; waiting
// between mutations and retrying on rate limits is the client's job.
//
// Trust: the state is read only from comments written by gcloop's own
// identity (compared case-insensitively and exactly — "gcloop[bot]" and
// "gcloop" are different accounts, so no "[bot]" suffix is added or
// removed), shaped as gcloop renders them (Header first, the state marker
// last) and, with a state-key, signed (Seal). github-actions[bot] is shared
// by every workflow of a repository, so the login alone is no proof.
package publish
