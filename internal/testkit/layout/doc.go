// Package layout holds the tests that keep the module's house in order:
// which package may import which (arrows only point down, cmd → bot →
// coverage → decide, internal packages are leaves, no product code imports
// a test kit, only bot and cmd talk to GitHub's client or the websocket
// library), how many packages a dry run goes through, and how long a
// source file may grow. It reads the module with `go list`; it has no code
// of its own.
package layout
