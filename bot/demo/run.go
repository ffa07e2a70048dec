package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gcloop/gcloop/bot/webhook"
	"github.com/gcloop/gcloop/internal/wait"
)

// Runner plays a script against a running bot.
type Runner struct {
	World  *World
	URL    string // the bot's base URL: http://127.0.0.1:PORT
	Secret []byte // the webhook secret the bot checks
	// Pace stretches the script's times: 1 is the day in under a minute,
	// 0 runs the steps one after the other, as soon as the last is done.
	Pace float64
	// Wait bounds how long the runner waits for a step's effect before it
	// says so and goes on (default 30 s).
	Wait time.Duration
	// Say is told each step as it starts, and each effect that did not
	// come (may be nil).
	Say    func(format string, args ...any)
	Client *http.Client // default: a client with a 10 s timeout
}

// Run plays steps in order; it returns when they are done or ctx ends.
// The error names every step whose effect did not show on the fake.
func (r *Runner) Run(ctx context.Context, steps []Step) error {
	if r.Wait <= 0 {
		r.Wait = 30 * time.Second
	}
	if r.Client == nil {
		r.Client = &http.Client{Timeout: 10 * time.Second}
	}
	say := r.Say
	if say == nil {
		say = func(string, ...any) {}
	}
	start := time.Now()
	var errs []error
	for i, st := range steps {
		if err := wait.Sleep(ctx, time.Until(start.Add(time.Duration(float64(st.At)*r.Pace)))); err != nil {
			return err
		}
		p := st.Pull(r.World)
		say("%5.1fs  %-18s %s", time.Since(start).Seconds(), p.String(), st.Say)
		d, err := st.Do(r.World, p)
		if err == nil {
			err = r.Send(ctx, d)
		}
		if err == nil {
			err = r.await(ctx, st, p)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			err = fmt.Errorf("step %d (%s: %s): %w", i+1, p, st.Say, err)
			say("        %v", err)
			errs = append(errs, err)
			continue
		}
		say("%5.1fs  %-18s → %s", time.Since(start).Seconds(), "", st.Then)
	}
	return errors.Join(errs...)
}

// await polls the step's effect on the fake until it shows, r.Wait passes
// or ctx ends.
func (r *Runner) await(ctx context.Context, st Step, p *Pull) error {
	deadline := time.Now().Add(r.Wait)
	for {
		err := st.Done(r.World, p)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not seen within %s: %w", r.Wait, err)
		}
		if err := wait.Sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// Send signs d with the secret and posts it to the bot's /webhook, as
// GitHub does; the bot must accept it (202).
func (r *Runner) Send(ctx context.Context, d Delivery) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL+"/webhook", bytes.NewReader(d.Body))
	if err != nil {
		return fmt.Errorf("delivery %s: %w", d.ID, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/gcloop-demo")
	req.Header.Set("X-GitHub-Event", d.Event)
	req.Header.Set("X-GitHub-Delivery", d.ID)
	req.Header.Set("X-Hub-Signature-256", webhook.Sign(r.Secret, d.Body))
	resp, err := r.Client.Do(req)
	if err != nil {
		return fmt.Errorf("deliver %s %s: %w", d.Event, d.ID, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("deliver %s %s: the bot answered %s: %s", d.Event, d.ID, resp.Status, bytes.TrimSpace(body))
	}
	return nil
}
