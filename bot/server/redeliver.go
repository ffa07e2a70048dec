package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/gcloop/gcloop/bot/store"
)

// Redeliver queues dead delivery id again in the store at databaseURL (the
// bot's GCLOOP_DATABASE_URL), for `gcloop bot redeliver ID`; a running bot
// finds it at its next poll. The in-memory store lives in the bot's
// process: its deliveries are redelivered from the dashboard.
func Redeliver(ctx context.Context, databaseURL, id string) error {
	if databaseURL == "" {
		return errors.New("GCLOOP_DATABASE_URL is not set: the in-memory store lives in the bot's process; redeliver from the dashboard, or run the bot on PostgreSQL")
	}
	if id == "" {
		return errors.New("which delivery? want gcloop bot redeliver ID (the ids are on the dashboard and at /api/deliveries?state=dead)")
	}
	st, err := openPostgres(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer st.Close()
	err = st.Redeliver(ctx, id)
	switch {
	case errors.Is(err, store.ErrUnknown):
		return fmt.Errorf("delivery %q is unknown: no such id, or forgotten %s after it finished", id, store.Forget)
	case errors.Is(err, store.ErrNotDead):
		return fmt.Errorf("not redelivered: %w", err)
	}
	return err
}
