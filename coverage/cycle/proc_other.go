//go:build !unix

package cycle

import "os/exec"

// killGroup keeps the default: the command alone is killed when its
// context ends.
func killGroup(cmd *exec.Cmd) {}
