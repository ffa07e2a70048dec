package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"syscall"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/server"
)

// DefaultListen is where the demo listens without --listen: loopback only,
// since the dashboard opens to loopback without authentication.
const DefaultListen = "127.0.0.1:8080"

// Options are the demo's settings. Zero values take the defaults.
type Options struct {
	Listen string       // default DefaultListen; port 0 picks one
	Out    io.Writer    // the dashboard's address and the day's steps (default io.Discard)
	Logger *slog.Logger // the bot's log (default: warnings and errors as JSON on io.Discard)
	// Pace stretches the day: 1 (the default when Fast is false) plays it
	// in under a minute; Fast plays each step as soon as the last is done.
	Fast bool
	// Listening, if set, is told the dashboard's base URL once the bot
	// listens (tests).
	Listening func(url string)
	// ScriptDone, if set, is told how the day went once it is over
	// (tests): nil when every step's effect showed on the fake.
	ScriptDone func(error)
	// World, if set, is told the world once it is built (tests).
	World func(*World)
	// Begin, if set, holds the day back until it is closed (tests open
	// the dashboard first, to see the rounds arrive).
	Begin <-chan struct{}
}

// Run builds the world, starts the bot on it and plays the day; the bot
// then serves until ctx ends (SIGINT, SIGTERM) and shuts down cleanly.
func Run(ctx context.Context, o Options) error {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	w, err := NewWorld()
	if err != nil {
		return err
	}
	defer func() {
		if err := w.Close(); err != nil {
			o.Logger.Error("the demo sent the fake GitHub requests the real one would refuse", "error", err.Error())
		}
	}()
	if o.World != nil {
		o.World(w)
	}
	act, err := w.PrepareAction()
	if err != nil {
		return err
	}
	defer func() { _ = act.Remove() }()
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("make the webhook secret: %w", err)
	}
	secret := hex.EncodeToString(b[:])
	settings := map[string]string{
		"GCLOOP_WEBHOOK_SECRET":  secret,
		"GCLOOP_APP_ID":          strconv.Itoa(AppID),
		"GCLOOP_APP_PRIVATE_KEY": string(ghfake.KeyPEM(w.Key)),
		"GITHUB_API_URL":         w.GH.URL(),
		"GCLOOP_LISTEN":          o.Listen,
	}
	cfg, err := server.Gather(func(name string) string { return settings[name] }, nil)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}

	var wg sync.WaitGroup
	defer wg.Wait()
	play, stop := context.WithCancel(ctx)
	defer stop()
	listening := func(addr net.Addr) {
		url := "http://" + loopback(addr)
		fmt.Fprintf(o.Out, "gcloop bot --demo: open %s/ — three pull requests of a fake GitHub go through a day of rounds in under a minute (a fix round and its fix issues, a push and a converged round, an escalation at the round cap, a maintainer's /gc retry and /gc approve); Ctrl-C stops.\n", url)
		fmt.Fprintf(o.Out, "The action on the same fake, while the demo runs (a review round on acme/shop#3, printed, not on the dashboard): %s\n", act.Line())
		if o.Listening != nil {
			o.Listening(url)
		}
		r := &Runner{World: w, URL: url, Secret: []byte(secret), Pace: 1,
			Say: func(format string, args ...any) { fmt.Fprintf(o.Out, format+"\n", args...) }}
		if o.Fast {
			r.Pace = 0
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if o.Begin != nil {
				select {
				case <-o.Begin:
				case <-play.Done():
					return
				}
			}
			err := r.Run(play, Day())
			if play.Err() != nil {
				return
			}
			if err == nil {
				fmt.Fprintf(o.Out, "The day is over: every loop is settled. The dashboard stays up until Ctrl-C.\n")
			}
			if o.ScriptDone != nil {
				o.ScriptDone(err)
			}
		}()
	}
	s, err := server.New(ctx, cfg, server.Options{Logger: o.Logger, Listening: listening})
	if err != nil {
		return fmt.Errorf("start the bot: %w", err)
	}
	err = s.ListenAndServe(ctx)
	stop()
	switch {
	case errors.Is(err, context.Canceled):
		return nil
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("%w (--listen 127.0.0.1:0 picks a free port)", err)
	}
	return err
}

// loopback is addr as a browser on this machine reaches it: a wildcard
// host (":8080", "0.0.0.0:8080", "[::]:8080") becomes 127.0.0.1.
func loopback(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
