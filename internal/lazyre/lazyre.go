// Package lazyre holds regular expressions that are compiled on first use.
//
// gcloop is one binary for many commands. A package-level
// regexp.MustCompile runs when the process starts, whichever command it
// runs, so every command paid for the expressions of all the others before
// it did any work of its own. Expressions made with New cost nothing until
// the code that needs them runs.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call and returns
// the same compiled expression on every call. Like regexp.MustCompile, it
// panics if expr is not a valid expression; the tests of the package that
// holds expr are what catch that.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
