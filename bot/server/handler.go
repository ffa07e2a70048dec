package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/gcloop/gcloop/bot/delivery"
)

// worker is the work of one delivery (*delivery.Handler).
type worker interface {
	Handle(ctx context.Context, id, name string, payload []byte) error
}

// forgetter drops what is cached of an installation (*appauth.Clients).
type forgetter interface {
	Forget(installation int64)
}

// handler is what the bot's workers run for a delivery: the delivery
// handler, behind what only the server knows — an installation's change
// refreshes its cached token and client, and a token configured for one
// repository works for that repository only.
type handler struct {
	next       worker
	clients    forgetter
	repository string // "" with an App
	log        *slog.Logger
}

// payloadHead is what the server reads of a payload.
type payloadHead struct {
	Action       string `json:"action"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository *struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

// Handle implements the workers' Handler.
func (h *handler) Handle(ctx context.Context, id, name string, payload []byte) error {
	var head payloadHead
	if err := json.Unmarshal(payload, &head); err != nil {
		return fmt.Errorf("delivery %s: %s payload: %w", id, name, err)
	}
	switch name {
	case "installation", "installation_repositories":
		if head.Installation == nil || head.Installation.ID <= 0 {
			return fmt.Errorf("%w: %s event without an installation", delivery.ErrIgnored, name)
		}
		h.clients.Forget(head.Installation.ID)
		h.log.Info("installation changed; its token and client are refreshed on next use",
			"delivery", id, "event", name, "action", head.Action, "installation", head.Installation.ID)
		return nil
	}
	if h.repository != "" && head.Repository != nil && !strings.EqualFold(head.Repository.FullName, h.repository) {
		return fmt.Errorf("%w: repository %s is not %s, the one the token serves", delivery.ErrIgnored, head.Repository.FullName, h.repository)
	}
	return h.next.Handle(ctx, id, name, payload)
}
