package webhook_test

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/gcloop/gcloop/bot/delivery"
	"github.com/gcloop/gcloop/bot/store"
	"github.com/gcloop/gcloop/bot/webhook"
)

// The bot's wiring: one store behind the receiver and the workers, the
// workers woken by the receiver, and on SIGTERM the server stopped before
// the workers hand back what they could not finish.
func Example() {
	st := store.NewMemory(store.Options{})
	defer st.Close()
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	handler := &delivery.Handler{ /* Clients, Login, Log: st, … */ }

	pool, err := webhook.NewPool(st, handler, webhook.PoolOptions{Logger: logger})
	if err != nil {
		logger.Error(err.Error())
		return
	}
	receiver, err := webhook.NewReceiver([]byte(os.Getenv("GCLOOP_WEBHOOK_SECRET")), st, webhook.ReceiverOptions{Wake: pool.Wake, Logger: logger})
	if err != nil {
		logger.Error(err.Error())
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/webhook", receiver)
	srv := &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute}
	pool.Start()
	go srv.ListenAndServe()

	// On SIGTERM:
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	pool.Shutdown(ctx)
}
