package delivery

import (
	"errors"
	"fmt"
)

// loopRounds gathers what the rounds of the loops one delivery runs came
// to, for the delivery's own outcome.
type loopRounds struct {
	ran           int
	errs, ignored []error
}

// add counts the round of loop id, which ended with err.
func (l *loopRounds) add(id string, err error) {
	switch {
	case errors.Is(err, ErrIgnored):
		l.ignored = append(l.ignored, fmt.Errorf("loop %s: %w", id, err))
	case err != nil:
		l.errs = append(l.errs, fmt.Errorf("loop %s: %w", id, err))
	}
}

// err is the delivery's outcome: ErrIgnored when no loop ran, a loop's
// failure when any failed (the delivery is retried, also when another
// loop ignored it), the loops' reasons when every one ignored it.
func (l *loopRounds) err() error {
	switch {
	case l.ran == 0:
		return ErrIgnored
	case len(l.errs) > 0:
		return errors.Join(l.errs...)
	case len(l.ignored) == l.ran:
		return errors.Join(l.ignored...)
	}
	return nil
}
