//go:build unix

package action

import (
	"fmt"
	"os"
	"syscall"
)

// owner is the user that files gcloop makes are given to: the owner of the
// directory they are made in, when gcloop runs as root (a Docker action's
// default) and that directory belongs to someone else (the runner's user).
// The zero owner gives nothing away.
type owner struct {
	uid, gid int
	set      bool
}

// ownerOf returns the owner to give files made in dir to.
func ownerOf(dir string) (owner, error) {
	if os.Geteuid() != 0 {
		return owner{}, nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return owner{}, fmt.Errorf("find the owner of %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return owner{}, nil
	}
	return owner{uid: int(st.Uid), gid: int(st.Gid), set: true}, nil
}

// give hands name, in root, to the owner.
func (o owner) give(root *os.Root, name string) error {
	if !o.set {
		return nil
	}
	if err := root.Lchown(name, o.uid, o.gid); err != nil {
		return fmt.Errorf("give %s to uid %d: %w", name, o.uid, err)
	}
	return nil
}
