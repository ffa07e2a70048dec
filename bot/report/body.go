package report

import (
	"errors"
	"fmt"

	"github.com/gcloop/gcloop/decide"
)

// CommentLimit is the largest report comment gcloop writes, in bytes:
// GitHub refuses comment bodies over 65 536 characters, and bytes are the
// stricter measure.
const CommentLimit = 65536

// StateBudget is the most bytes the state marker takes in the report
// comment, signature included; CompactState shrinks older history to fit
// it, which leaves about 48 KiB of the 64 KiB comment to the report itself.
const StateBudget = 16 << 10

// CheckSize is the one check that a comment body fits GitHub's limit.
func CheckSize(body string) error {
	if len(body) > CommentLimit {
		return fmt.Errorf("body of %d bytes, over GitHub's limit of %d", len(body), CommentLimit)
	}
	return nil
}

// Body renders the report comment of a decision: Header(st.ID) first, the
// report (Markdown's layout) compacted to fit CommentLimit, and the state,
// compacted to StateBudget and sealed over s with key (Seal), as the last
// line — never cut. st.ID must be a valid loop id, or the comment could
// not be found again.
func Body(d *decide.Decision, st *decide.State, o Options, s Scope, key []byte) (string, error) {
	if d == nil {
		return "", errors.New("report comment: no decision")
	}
	if st == nil {
		return "", errors.New("report comment: no state to carry")
	}
	if !decide.ValidID(st.ID) {
		return "", fmt.Errorf("report comment: state loop id %q: %s", st.ID, decide.IDRule)
	}
	s.LoopID = st.ID
	marker, err := Seal(CompactState(st, StateBudget-sigLen), s, key)
	if err != nil {
		return "", fmt.Errorf("report comment: encode the state: %w", err)
	}
	head := Header(st.ID)
	body, err := render(d, o, CommentLimit-len(head), marker)
	if err != nil {
		return "", fmt.Errorf("report comment: %w", err)
	}
	return head + body, nil
}
