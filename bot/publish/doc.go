// Package publish writes the fix issues of a loop's fix round to GitHub:
// one issue per task, deduplicated across re-runs, closed when the loop
// converges. The report comment and the state it carries belong to
// bot/report.
//
// It talks to GitHub through a narrow interface that go-github v62's
// *github.IssuesService satisfies (issuesAPI), so tests can run it
// against an httptest server with a real client or against a small
// recording fake. Every mutation is made one at a time; waiting between
// mutations and retrying on rate limits is the client's job.
package publish
