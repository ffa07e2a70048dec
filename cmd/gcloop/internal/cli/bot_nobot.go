//go:build nobot

package cli

import "fmt"

// runBot, in a build without the bot (built with -tags nobot to stay
// small, as the action's image and the release binaries are), says where
// the bot is, exit 2; -h or --help print it as the usage, exit 0.
// README.md quotes the message (internal/testkit/imagetest checks it).
func runBot(env *Env, args []string) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			botUsage(env.Stdout)
			return nil
		}
	}
	return usagef("bot is not in this build: %s", botElsewhere())
}

func botUsage(w interface{ Write([]byte) (int, error) }) {
	fmt.Fprintln(w, "Usage: gcloop bot [--listen ADDR] [flags]")
	fmt.Fprintln(w, "       gcloop bot --demo [--listen ADDR]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Not in this build, nor its --demo (the bot on a fake GitHub, on this machine):", botElsewhere())
}

// botElsewhere says which builds leave the bot out and how to get one
// that has it, naming this build's release in the go install line.
func botElsewhere() string {
	return fmt.Sprintf("the action's image and the release binaries are built with -tags nobot, without the bot, to stay small; install a build with the bot (go install github.com/gcloop/gcloop/cmd/gcloop@%s, or go install ./cmd/gcloop in a clone) or build its container (docs/bot.md)", versionOrLatest())
}
