//go:build unix

package cycle

import (
	"os/exec"
	"syscall"
)

// killGroup makes cmd run in its own process group and, when its context
// ends, kills the whole group: a test runner's children must not outlive a
// cancelled cycle.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
