// Package event holds the entries of the bot's event log: what the live
// feed (/ws), /api/events and the dashboard show, and what the store keeps
// and fans out to every replica.
package event

import (
	"encoding/json"
	"time"
)

// Types of events.
const (
	Delivery = "delivery" // a webhook delivery was accepted or finished
	Round    = "round"    // a round started
	Decision = "decision" // a round decided
	Comment  = "comment"  // the report comment was written
	Issue    = "issue"    // a fix issue was opened, updated or closed
	Commit   = "commit"   // a test-only fix commit was pushed
	Check    = "check"    // the check run was written
	Command  = "command"  // a /gc command was handled
	Error    = "error"    // something failed
)

// Event is one entry of the log. ID and Time are set by the store that
// appends it; IDs only increase.
type Event struct {
	ID   int64           `json:"id"`
	Time time.Time       `json:"time"`
	Type string          `json:"type"`
	Repo string          `json:"repo,omitempty"` // owner/name
	PR   int             `json:"pr,omitempty"`
	Loop string          `json:"loop,omitempty"` // the loop id
	Data json.RawMessage `json:"data,omitempty"`
}
