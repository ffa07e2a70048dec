//go:build !unix

package action

import "os"

// owner is a no-op where files have no Unix owner.
type owner struct{}

func ownerOf(string) (owner, error) { return owner{}, nil }

func (owner) give(*os.Root, string) error { return nil }
