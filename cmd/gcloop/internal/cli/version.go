package cli

import "runtime/debug"

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
