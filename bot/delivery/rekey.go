package delivery

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gcloop/gcloop/bot/round"
)

// RekeyError is Handle's answer for a delivery queued under a key that is
// not its pull request's — a fork's workflow_run, keyed "owner/name@sha"
// because its payload names no pull request: the work must not start
// beside other work on that pull request, so the delivery is to be queued
// again under Key ("owner/name#N") and handled once that key is free.
type RekeyError struct{ Key string }

func (e *RekeyError) Error() string {
	return "the delivery belongs to " + e.Key + ": queue it again under that key"
}

type keyContext struct{}

// WithKey is ctx telling Handle the serialization key its delivery is
// worked under in the queue. Without it (a direct call) Handle does not
// ask for a delivery to be re-keyed.
func WithKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyContext{}, key)
}

// KeyOf is the serialization key WithKey gave ctx; false without one.
func KeyOf(ctx context.Context) (string, bool) {
	key, ok := ctx.Value(keyContext{}).(string)
	return key, ok
}

// pullKey is the queue key of pull request n of repository fullName, as
// the receiver writes it.
func pullKey(fullName string, n int) string { return fullName + "#" + strconv.Itoa(n) }

// ownKey checks that a workflow_run delivery is worked under its pull
// request's key: a RekeyError when it is queued under another (its head
// sha's), nil when it is not queued, already under a pull request's key,
// or of no pull request (the round says so).
func ownKey(ctx context.Context, e *round.Engine, fullName string) error {
	key, queued := KeyOf(ctx)
	if !queued || strings.Contains(key, "#") {
		return nil
	}
	pull, err := e.Pull(ctx)
	if errors.Is(err, round.ErrNoPull) || (err == nil && pull == nil) {
		return nil
	}
	if err != nil {
		return err
	}
	if want := pullKey(fullName, pull.Number); want != key {
		return &RekeyError{Key: want}
	}
	return nil
}
