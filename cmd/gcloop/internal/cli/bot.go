//go:build !nobot

package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/gcloop/gcloop/bot/server"
)

// setFlag is a string flag that remembers whether it was given.
type setFlag struct {
	val string
	set bool
}

func (f *setFlag) String() string { return f.val }
func (f *setFlag) Set(s string) error {
	f.val, f.set = s, true
	return nil
}

// runBot runs `gcloop bot`: the GitHub App's webhook server. Each setting
// is an environment variable, or a flag of the variable's name without
// GCLOOP_ (--listen), or of its whole name in lower case
// (--gcloop_listen); a flag wins over the variable.
func runBot(env *Env, args []string) error {
	fs := newFlagSet("bot", env)
	flags := map[string]*setFlag{}
	for _, v := range server.Vars {
		f := &setFlag{}
		flags[v.Env] = f
		fs.Var(f, v.Flag, v.Help)
		fs.Var(f, strings.ToLower(v.Env), v.Help)
	}
	fs.Usage = func() { botUsage(fs.Output()) }
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return flagError(err)
	}
	get := func(name string) string {
		if f := flags[name]; f != nil && f.set {
			return f.val
		}
		return env.Getenv(name)
	}
	if len(rest) > 0 && rest[0] == "redeliver" {
		return runRedeliver(env, rest[1:], get)
	}
	if len(rest) > 0 {
		return usagef("bot: unexpected argument %q", rest[0])
	}
	cfg, err := server.Gather(get, os.ReadFile)
	if err != nil {
		var ce server.ConfigErrors
		if errors.As(err, &ce) {
			for _, e := range ce {
				fmt.Fprintln(env.Stderr, "gcloop: bot:", oneLine(e.Error()))
			}
			return &exitError{code: exitUsage}
		}
		return usagef("bot: %v", err)
	}
	log := server.NewLogger(env.Stderr, slog.LevelInfo)
	s, err := server.New(env.Ctx, cfg, server.Options{Logger: log})
	if err != nil {
		return fmt.Errorf("bot: %w", err)
	}
	return s.ListenAndServe(env.Ctx)
}

// runRedeliver runs `gcloop bot redeliver ID`: a dead delivery queued
// again, in the store the bot's settings name.
func runRedeliver(env *Env, args []string, get func(string) string) error {
	if len(args) != 1 {
		return usagef("bot redeliver: want one delivery id, got %d arguments", len(args))
	}
	id := args[0]
	if err := server.Redeliver(env.Ctx, strings.TrimSpace(get("GCLOOP_DATABASE_URL")), id); err != nil {
		return fmt.Errorf("bot redeliver: %w", err)
	}
	fmt.Fprintf(env.Stdout, "redelivered %s: queued again\n", id)
	return nil
}

func botUsage(w interface{ Write([]byte) (int, error) }) {
	fmt.Fprintln(w, "Usage: gcloop bot [--listen ADDR] [flags]")
	fmt.Fprintln(w, "       gcloop bot redeliver ID [--database-url URL]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Serves a GitHub App's webhooks: /webhook, the live feed /ws, the dashboard /,")
	fmt.Fprintln(w, "/api/events, /api/loops, /healthz, /readyz and /metrics. Logs are JSON lines on")
	fmt.Fprintln(w, "stderr. SIGTERM or SIGINT shuts it down cleanly. gcloop bot redeliver ID queues")
	fmt.Fprintln(w, "a dead delivery again, in the PostgreSQL store of GCLOOP_DATABASE_URL.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Settings (an environment variable, or the flag, which wins; the flag may also be")
	fmt.Fprintln(w, "spelled as the variable in lower case, e.g. --gcloop_listen):")
	for _, v := range server.Vars {
		fmt.Fprintf(w, "  --%-22s %s\n  %-24s %s\n", v.Flag, v.Env, "", v.Help)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "A first try: GCLOOP_WEBHOOK_SECRET=… GCLOOP_TOKEN=… gcloop bot")
}
