package cli

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X ...cli.version=v1.2.3".
var version = ""

// Version returns the build's version: the one set at link time, else the
// module version, else "devel".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// runVersion runs `gcloop version`: the version on stdout.
func runVersion(env *Env, args []string) error {
	fs := newFlagSet("version", env)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: gcloop version")
		fs.PrintDefaults()
	}
	rest, err := parseFlags(env, fs, args)
	if err != nil {
		return flagError(err)
	}
	if len(rest) > 0 {
		return usagef("version: unexpected argument %q", rest[0])
	}
	fmt.Fprintln(env.Stdout, "gcloop", Version())
	return nil
}
