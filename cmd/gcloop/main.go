// Command gcloop decides generator–critic loops on pull requests: it reads
// critic evidence, decides converge, fix or escalate, and acts on GitHub.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/gcloop/gcloop/cmd/gcloop/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
