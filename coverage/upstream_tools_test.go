package coverage

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// statedLines is what a tool itself states about a fixture's lines.
type statedLines struct {
	by             string // where it is stated
	covered, total int64
}

var (
	// JaCoCo: the report's own LINE counter is the last one of the file.
	jacocoLineCounter = regexp.MustCompile(`<counter type="LINE" missed="(\d+)" covered="(\d+)"/>`)
	// Cobertura: the root's lines-covered and lines-valid.
	coberturaRoot = regexp.MustCompile(`<coverage [^>]*lines-covered="(\d+)" lines-valid="(\d+)"`)
	// Clover: the project's metrics are the first ones with a files
	// attribute (gcovr and OpenClover write them first, PHPUnit's Clover
	// last; package and file metrics before it carry none, or follow it).
	cloverProject = regexp.MustCompile(`<metrics [^>]*\bfiles="\d+"[^>]*>`)
	cloverStmts   = regexp.MustCompile(`\bstatements="(\d+)"`)
	cloverCovered = regexp.MustCompile(`\bcoveredstatements="(\d+)"`)
	// LCOV: the LF and LH records, which lcov --summary adds up.
	lcovRecord = regexp.MustCompile(`(?m)^L([FH]):(\d+)\r?$`)
	// gcovr's text report: the TOTAL line of a report of lines.
	gcovrTxtLines = regexp.MustCompile(`(?m)^File\s+Lines\s+Exec\s+Cover`)
	gcovrTxtTotal = regexp.MustCompile(`(?m)^TOTAL\s+(\d+)\s+(\d+)\s`)
)

func parseStated(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(err) // the expressions match digits only
	}
	return v
}

// statedInFile is what a fixture states about itself: the totals its tool
// wrote into it.
func statedInFile(f upstreamFixture) []statedLines {
	s := string(f.data)
	switch {
	case f.facts != nil && f.facts.Format == string(FormatJaCoCo):
		m := jacocoLineCounter.FindAllStringSubmatch(s, -1)
		if len(m) == 0 {
			return nil
		}
		last := m[len(m)-1]
		missed, covered := parseStated(last[1]), parseStated(last[2])
		return []statedLines{{"the report's LINE counter", covered, covered + missed}}
	case f.facts != nil && f.facts.Format == string(FormatCobertura):
		if m := coberturaRoot.FindStringSubmatch(s); m != nil {
			return []statedLines{{"lines-covered/lines-valid", parseStated(m[1]), parseStated(m[2])}}
		}
	case f.facts != nil && f.facts.Format == string(FormatClover):
		if p := cloverProject.FindString(s); p != "" {
			return []statedLines{{"the project's metrics", parseStated(cloverCovered.FindStringSubmatch(p)[1]), parseStated(cloverStmts.FindStringSubmatch(p)[1])}}
		}
	case strings.HasSuffix(f.rel, ".lcov"):
		st := statedLines{by: "the sum of LH/LF"}
		for _, m := range lcovRecord.FindAllStringSubmatch(s, -1) {
			if m[1] == "F" {
				st.total += parseStated(m[2])
			} else {
				st.covered += parseStated(m[2])
			}
		}
		return []statedLines{st}
	}
	return nil
}

// gcovrReferenceDirs lists the directories gcovr's test suite looks in for
// the reference files of the compiler whose directory is dir (as its
// tests/conftest.py does): the same compiler, then each older version
// down to gcc-5 or clang-10, each first with the OS suffix when dir has one.
func gcovrReferenceDirs(dir string) []string {
	parent, name := path.Split(dir)
	m := regexp.MustCompile(`^(gcc|clang)-(\d+)(-[A-Za-z]+)?$`).FindStringSubmatch(name)
	if m == nil {
		return []string{dir}
	}
	lowest := map[string]int{"gcc": 5, "clang": 10}[m[1]]
	var out []string
	for v := int(parseStated(m[2])); v >= lowest; v-- {
		if m[3] != "" {
			out = append(out, fmt.Sprintf("%s%s-%d%s", parent, m[1], v, m[3]))
		}
		out = append(out, fmt.Sprintf("%s%s-%d", parent, m[1], v))
	}
	return out
}

// gcovrSummaries is what gcovr's text and JSON summaries of the same test
// state, for the compiler of the fixture's directory.
func gcovrSummaries(t *testing.T, rel string) []statedLines {
	t.Helper()
	if strings.Contains(path.Base(rel), ".merged.") {
		// A run with --merge-lines, which counts a line once however many
		// functions hold it (as we do); the summaries are of the run
		// without it.
		return nil
	}
	var out []statedLines
	for _, name := range []string{"coverage_summary.json", "coverage.txt"} {
		for _, dir := range gcovrReferenceDirs(path.Dir(rel)) {
			data, err := os.ReadFile(filepath.Join(upstreamDir, "gcovr", filepath.FromSlash(dir), name))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			by := dir + "/" + name
			if name == "coverage.txt" {
				if m := gcovrTxtTotal.FindStringSubmatch(string(data)); m != nil && gcovrTxtLines.Match(data) {
					out = append(out, statedLines{by, parseStated(m[2]), parseStated(m[1])})
				}
				break
			}
			var sum struct {
				Covered int64 `json:"line_covered"`
				Total   int64 `json:"line_total"`
			}
			if err := json.Unmarshal(data, &sum); err != nil {
				t.Fatalf("%s: %v", by, err)
			}
			out = append(out, statedLines{by, sum.Covered, sum.Total})
			break
		}
	}
	return out
}

// upstreamDiffers lists the fixtures (path patterns under their project)
// whose reading differs from a figure the tool states, with the reason.
// Every entry must still differ: a stale one fails the test.
var upstreamDiffers = map[string]string{
	// With gcc ≥ 14 (and gcc 8's reports of these tests) gcovr keeps a line
	// once per function that holds it — a const and a non-const overload,
	// template instances, a virtual destructor's variants — and its text and
	// JSON summaries, its Clover metrics and Cobertura lines-valid, and the
	// LCOV LF/LH count such a line once per function, missed when one
	// instance did not run ("main.cpp 19 17 89% Missing 8-9" for two
	// lines that ran in one instance). The files themselves list the line
	// twice (Clover, Cobertura) or once with the highest count (gcovr's own
	// LCOV DA records: "DA:8,2"). We count each source line once, covered
	// when any instance ran: the distinct lines of the file, as the DA
	// records say. gcovr's JaCoCo output carries the per-function totals in
	// its LINE counter, which the JaCoCo reader takes as stated.
	"gcovr/const-functions/reference/gcc-14/*":                                     perFunctionLines,
	"gcovr/exclusion/reference/exclude-line-branch/gcc-14/*":                       perFunctionLines,
	"gcovr/several-functions-on-same-line/reference/*/*":                           perFunctionLines,
	"gcovr/template-function/reference/template-function/*/*":                      perFunctionLines,
	"gcovr/virtual-classes/reference/*/*":                                          perFunctionLines,
	"gcovr/merging/reference/different-functions-merge-use-line-0/*/coverage.lcov": "gcovr merges functions at line 0 and writes DA:0, a record of no source line that its own LF/LH and text summary leave out; the LCOV reader counts every DA record",
	"gcovr/nested/reference/oos/*/coverage.lcov":                                   "gcovr writes a DA record for each function's first line (its change #1212) but leaves these lines out of LF/LH and its text summary when they are no statement of their own; the LCOV reader counts every DA record",
	"gcovr/windows/reference/drive-subst/gcc-14-Windows/coverage.lcov":             "gcovr's test suite scrubs the drive letter path of a subst'ed drive out of SF: and stores the scrubbed file, whose SF: is empty; an empty SF: is refused (the expected-error golden)",
	// PHPUnit states a file's totals, which count code outside any class
	// or function (line 2 of source_with_ignore.php), but writes <line>s
	// only for classes and functions.
	"php-code-coverage/tests/_files/Report/Cobertura/ignored-lines.xml": "PHPUnit's Cobertura writer counts line 2, outside any class or function, in lines-valid but writes no <line> for it; the Cobertura reader counts the lines the file lists",
}

const perFunctionLines = "gcovr counts a line once per function instance that holds it; the file lists the line's instances and we count the line once"

func TestUpstreamMatchesTools(t *testing.T) {
	t.Parallel()
	for _, project := range upstreamProjects(t) {
		t.Run(project, func(t *testing.T) {
			t.Parallel()
			used := map[string]bool{}
			var checked, differ int
			for _, f := range readUpstream(t, project) {
				stated := statedInFile(f)
				if project == "gcovr" {
					stated = append(stated, gcovrSummaries(t, f.rel)...)
				}
				var diffs []string
				for _, st := range stated {
					checked++
					if f.err != nil || f.facts.Covered != st.covered || f.facts.Total != st.total {
						diffs = append(diffs, fmt.Sprintf("%s states %d/%d", st.by, st.covered, st.total))
					}
				}
				differ += len(diffs)
				key := project + "/" + f.rel
				pattern := explainedBy(key)
				if f.facts != nil && f.facts.Format == string(FormatJaCoCo) {
					pattern = "" // a JaCoCo report's own LINE counter always holds
				}
				switch {
				case len(diffs) > 0 && pattern == "":
					t.Errorf("%s: %s, but %s", key, strings.TrimPrefix(f.summary(), f.rel+"\t"), strings.Join(diffs, "; "))
				case len(diffs) > 0:
					used[pattern] = true
				}
			}
			if checked == 0 {
				t.Errorf("no fixture of %s states its lines", project)
			}
			t.Logf("%d figures stated by the tools checked, %d differ (explained)", checked, differ)
			var stale []string
			for p := range upstreamDiffers {
				if strings.HasPrefix(p, project+"/") && !used[p] {
					stale = append(stale, p)
				}
			}
			sort.Strings(stale)
			for _, p := range stale {
				t.Errorf("upstreamDiffers[%q]: no fixture differs any more", p)
			}
		})
	}
}

// explainedBy returns the pattern of upstreamDiffers that key matches, or "".
func explainedBy(key string) string {
	for p := range upstreamDiffers {
		if ok, _ := path.Match(p, key); ok {
			return p
		}
	}
	return ""
}
