package cli

import (
	"errors"
	"io/fs"
)

// unwrapPathError drops the *fs.PathError wrapper, whose path the caller
// already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
