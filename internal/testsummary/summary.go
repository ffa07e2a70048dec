package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json), build events
// included.
type event struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output and build-fail
}

// maxKept bounds the output kept for one test or package until it is known
// to have failed; what goes past it is cut, and the cut is said.
const maxKept = 1 << 20

// maxReason bounds one skip reason in the summary.
const maxReason = 300

// output is the text kept for one test or package.
type output struct {
	buf bytes.Buffer
	cut bool
}

func (o *output) add(s string) {
	if room := maxKept - o.buf.Len(); len(s) > room {
		s, o.cut = s[:max(room, 0)], true
	}
	o.buf.WriteString(s)
}

func (o *output) String() string {
	if o.cut {
		return o.buf.String() + "\n[output past 1 MiB cut]\n"
	}
	return o.buf.String()
}

// key names a test of a package; Test is "" for the package itself.
type key struct{ pkg, test string }

// skip is one skipped test and the reason it gave.
type skip struct {
	pkg, test, reason string
}

// Summary turns a `go test -json` stream into what `go test` prints
// without -v — a line per package, the whole output of each failing test
// and package, build errors — and ends with the tests that were skipped,
// grouped by package and reason.
type Summary struct {
	w       io.Writer
	kept    map[key]*output
	skips   []skip
	counts  map[string]int // test results by action: pass, fail, skip
	pkgs    int
	failed  bool
	events  int
	unknown int // lines that were not test2json events, passed through
}

// NewSummary writes the summary to w.
func NewSummary(w io.Writer) *Summary {
	return &Summary{w: w, kept: map[key]*output{}, counts: map[string]int{}}
}

// Line takes one line of the stream, without its newline.
func (s *Summary) Line(line []byte) {
	var e event
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Action == "" {
		// go test's own lines (a package that does not build, before Go
		// reported builds as events) pass through as they are.
		s.unknown++
		fmt.Fprintf(s.w, "%s\n", line)
		return
	}
	s.events++
	switch e.Action {
	case "build-output":
		fmt.Fprint(s.w, e.Output)
		return
	case "build-fail":
		s.failed = true
		return
	}
	k := key{e.Package, e.Test}
	switch e.Action {
	case "output":
		o := s.kept[k]
		if o == nil {
			o = &output{}
			s.kept[k] = o
		}
		o.add(e.Output)
	case "pass", "fail", "skip":
		s.end(k, e.Action)
	}
}

// end handles a test or package's result.
func (s *Summary) end(k key, action string) {
	o := s.kept[k]
	delete(s.kept, k)
	text := ""
	if o != nil {
		text = o.String()
	}
	if action == "fail" {
		s.failed = true
	}
	if k.test != "" {
		s.counts[action]++
		switch action {
		case "fail":
			fmt.Fprint(s.w, text)
		case "skip":
			s.skips = append(s.skips, skip{k.pkg, k.test, skipReason(text)})
		}
		return
	}
	s.pkgs++
	switch action {
	case "fail":
		fmt.Fprint(s.w, text)
	default: // the package's last line: ok, or ? for no test files
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		if last := lines[len(lines)-1]; last != "" {
			fmt.Fprintln(s.w, last)
		} else {
			fmt.Fprintf(s.w, "%s\t%s\n", action, k.pkg)
		}
	}
}

// skipReason is what a skipped test said: its log lines, without go
// test's own framing (=== RUN, --- SKIP and the like).
func skipReason(text string) string {
	var parts []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	r := strings.Join(parts, " ")
	if r == "" {
		return "no reason given"
	}
	if len(r) > maxReason {
		r = strings.ToValidUTF8(r[:maxReason], "") + "…"
	}
	return r
}

// Finish writes what is left — the output of tests and packages that never
// ended (a crash or a timeout cut them off), then the skipped tests — and
// returns the exit code: 1 when anything failed or never ended, or nothing
// was read.
func (s *Summary) Finish(elapsed time.Duration) int {
	if len(s.kept) > 0 {
		var open []key
		for k, o := range s.kept {
			if o.buf.Len() > 0 {
				open = append(open, k)
			}
		}
		sort.Slice(open, func(i, j int) bool {
			return open[i].pkg < open[j].pkg || open[i].pkg == open[j].pkg && open[i].test < open[j].test
		})
		for _, k := range open {
			fmt.Fprint(s.w, s.kept[k].String())
		}
		if len(open) > 0 {
			fmt.Fprintf(s.w, "testsummary: %s never reported a result (the stream was cut off)\n", plural(len(open), "test or package"))
			s.failed = true
		}
	}
	s.writeSkips()
	fmt.Fprintf(s.w, "tests and subtests: %d passed, %d failed, %d skipped in %s (%s)\n",
		s.counts["pass"], s.counts["fail"], s.counts["skip"], plural(s.pkgs, "package"), elapsed.Round(time.Second))
	switch {
	case s.events == 0:
		fmt.Fprintln(s.w, "no test events read: run go test -json and pipe its output here")
		return 1
	case s.failed:
		return 1
	}
	return 0
}

// writeSkips writes one summary line, then one line per package and
// reason with the tests that gave it.
func (s *Summary) writeSkips() {
	if len(s.skips) == 0 {
		fmt.Fprintln(s.w, "skipped: none")
		return
	}
	type group struct {
		pkg, reason string
		tests       []string
	}
	var groups []*group
	index := map[[2]string]*group{}
	for _, sk := range s.skips {
		id := [2]string{sk.pkg, sk.reason}
		g := index[id]
		if g == nil {
			g = &group{pkg: sk.pkg, reason: sk.reason}
			index[id] = g
			groups = append(groups, g)
		}
		g.tests = append(g.tests, sk.test)
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].pkg < groups[j].pkg })
	fmt.Fprintf(s.w, "skipped: %s in %s, and why:\n", plural(len(s.skips), "test"), plural(countPackages(groups, func(g *group) string { return g.pkg }), "package"))
	for _, g := range groups {
		names := g.tests
		more := ""
		if len(names) > 3 {
			names, more = names[:3], fmt.Sprintf(" and %d more", len(g.tests)-3)
		}
		fmt.Fprintf(s.w, "  %s: %s (%s%s)\n", g.pkg, g.reason, strings.Join(names, ", "), more)
	}
}

func countPackages[T any](items []T, pkg func(T) string) int {
	seen := map[string]bool{}
	for _, it := range items {
		seen[pkg(it)] = true
	}
	return len(seen)
}

// plural is n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, " or package"):
		return fmt.Sprintf("%d tests or packages", n)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
