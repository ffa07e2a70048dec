//go:build nobot

package cli

import "fmt"

// runBot, in a build without the bot (the action's image, built with
// -tags nobot to stay small), says where the bot is.
func runBot(*Env, []string) error {
	return usagef("bot is not in this build (nor its --demo): the action's image leaves the bot out to stay small; run it from a full build (go install github.com/gcloop/gcloop/cmd/gcloop@%s) or its container (docs/bot.md)", versionOrLatest())
}

func botUsage(w interface{ Write([]byte) (int, error) }) {
	fmt.Fprintln(w, "Usage: gcloop bot [--listen ADDR] [flags]")
	fmt.Fprintln(w, "       gcloop bot --demo [--listen ADDR]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Not in this build, nor its --demo (the bot on a fake GitHub, on this machine): the")
	fmt.Fprintln(w, "action's image leaves the bot out. Run a full build")
	fmt.Fprintln(w, "(go install github.com/gcloop/gcloop/cmd/gcloop@latest) or the bot's container (docs/bot.md).")
}
