// Package evidence is gcloop's evidence registry: the one place that knows
// which files gcloop reads and how to tell them apart.
//
// The registry (registry.go) lists every format with its name, its family
// (findings, tests, coverage), the rule that recognises it from a file's
// first SniffLen bytes, and its reader; the readers themselves live with
// their formats, in package coverage and package decide/evidence. The
// order of the list is the order the rules are tried in. Adding a format
// is one reader file beside its kind plus one line in the list.
//
// On top of the registry the package reads: a file or a stream (Read,
// with the fallbacks the loops prescribe for content that cannot be read;
// ReadReport for `gcloop coverage`; ReadTests for the coverage guard),
// the paths of a command line (Paths, ReadPaths), and a workspace
// (Workspace: paths, directories and globs, every file opened through an
// os.Root, so that a symlink out of it is refused). Every driver — gcloop
// decide, gcloop coverage, gcloop run and the bot — reads evidence here.
package evidence
