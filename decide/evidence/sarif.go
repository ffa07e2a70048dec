package evidence

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/jsonscan"
	"github.com/gcloop/gcloop/internal/parse"
)

// MaxFindings is the most findings ReadSARIF and ReadCheckstyle keep from
// one file. Beyond it the most severe are kept (the earlier of equally
// severe ones) and the rest are counted in Evidence.Omitted, so memory does
// not grow with the size of the log.
const MaxFindings = 5000

// Limits of the SARIF reader.
const (
	// sarifBufSize is the read buffer; no token needs to fit in it whole.
	sarifBufSize = 64 << 10
	// sarifMaxMessage caps a finding's message.
	sarifMaxMessage = 4 << 10
	// sarifMaxField caps file paths, rule ids, tool names and other strings.
	sarifMaxField = 1 << 10
	// sarifMaxDesc caps the rule description kept for messages given by id.
	sarifMaxDesc = 512
	// sarifMaxRules caps the rules kept per run; later ones are ignored.
	sarifMaxRules = 50000
	// sarifMaxPending caps the results held back per run when results come
	// before the tool's rules (their severity is not known yet).
	sarifMaxPending = 4 * MaxFindings
	// sarifMaxGroups caps the distinct (rule, level) groups of held-back
	// results per run.
	sarifMaxGroups = 1 << 16
	// sarifMaxArgs caps the arguments kept of one message.
	sarifMaxArgs = 32
	// sarifMaxStrings caps the bytes of message strings (rules'
	// messageStrings, components' globalMessageStrings) kept per run;
	// later ones are not kept, and a message naming them falls back to
	// the rule's description.
	sarifMaxStrings = 4 << 20
)

// ReadSARIF reads a SARIF 2.1.0 log (CodeQL, gosec, semgrep, ESLint's SARIF
// formatter, staticcheck, ...) into findings. The log is streamed through a
// fixed buffer: runs, rules and results are read one at a time, values the
// reader does not need are skipped without being held, and at most
// MaxFindings findings are kept (the most severe; the rest are counted in
// Evidence.Omitted).
//
// Severity follows DESIGN §3.6: a security-severity property (the result's
// own, else its rule's) maps ≥ 9 critical, ≥ 7 high, ≥ 4 medium, else low;
// otherwise the level (the result's, else the rule's
// defaultConfiguration.level, else warning) maps error → high, warning →
// medium, note/none → low. Results with a suppression whose status is
// absent or accepted are ignored, as are results of a kind other than fail
// (pass, notApplicable, informational, review, open: no failure) and results
// whose baselineState is absent (fixed since the baseline). A message given
// by id is the rule's messageStrings entry of that id, else the tool
// component's globalMessageStrings entry, with its {0}, {1}… placeholders
// filled from the message's arguments. Results of effective level error count as TypeErrors when the
// tool is a type checker (or the rule is "typecheck") and as LintErrors
// otherwise.
func ReadSARIF(name string, r io.Reader) (*decide.Evidence, error) {
	return readSARIF(name, r, sarifDefaultOpts())
}

// sarifOpts says how results are read and filed.
type sarifOpts struct {
	// overlap files results on a goroutine of their own, in batches of
	// batch results.
	overlap bool
	batch   int
	// workers, when above 1, reads results in parts of about part bytes
	// on that many goroutines (sarif_split.go).
	workers int
	part    int
}

// sarifDefaultOpts are ReadSARIF's: results read in parts on all cores,
// when there are several.
func sarifDefaultOpts() sarifOpts {
	n := runtime.GOMAXPROCS(0)
	o := sarifOpts{overlap: n > 1, batch: sarifBatch, part: sarifPart}
	if n > 1 {
		o.workers = n
	}
	return o
}

// readSARIF is ReadSARIF with the given options.
func readSARIF(name string, r io.Reader, o sarifOpts) (*decide.Evidence, error) {
	sr := newSARIFReader(name, r, o)
	if err := sr.readLog(); err != nil {
		return nil, err
	}
	return sr.finish(), nil
}

// newSARIFReader returns the reader of one ReadSARIF call.
func newSARIFReader(name string, r io.Reader, o sarifOpts) *sarifReader {
	return &sarifReader{
		name: name,
		sc:   jsonscan.New(name, r, sarifBufSize),
		keep: keeper{},
		ev:   &decide.Evidence{Sources: []string{name}, Analysis: true},

		overlap: o.overlap,
		batch:   o.batch,
		workers: o.workers,
		part:    o.part,
	}
}

// sarifReader holds the state of one ReadSARIF call.
type sarifReader struct {
	name string
	sc   *jsonscan.Scanner
	keep keeper
	// overlap files results on a goroutine of their own (several cores),
	// in batches of batch results.
	overlap bool
	batch   int
	// workers and part: see sarifOpts.
	workers, part int
	rewinds       int      // results arrays read on by readResultsFrom after a part
	interned      []string // see intern
	// texts, on a worker of the split reading, is the part's buffer that
	// message texts are read into (see borrowText); nil elsewhere.
	texts *[]byte
	ev    *decide.Evidence
	seq   int // results read, for document order

	sawVersion bool
	sawRuns    bool
	runs       int

	suppressed   int // results ignored for a suppression
	absent       int // results ignored for baselineState absent
	notFail      int // results ignored for a kind other than fail
	extraStrings int // message strings past sarifMaxStrings
	badScores    int // security-severity values that are not numbers
	unknownRef   int // results whose rule could not be found
	overflow     int // results held back past sarifMaxPending
	uncompared   int // results before the tool not held, so not deduplicated
	extraRules   int // rules past sarifMaxRules
}

// readLog reads the top-level object.
func (sr *sarifReader) readLog() error {
	s := sr.sc
	if err := s.BeginDoc("SARIF log"); err != nil {
		return err
	}
	err := s.Object("", "", func(key []byte) error {
		switch string(key) {
		case "version":
			c, err := s.Next()
			if err != nil {
				return err
			}
			at := s.Off()
			if c != '"' {
				return s.Errorf(at, "version: expected the string \"2.1.0\", found %s", jsonscan.Kind(c))
			}
			v, err := s.StringVal("", "version", 64)
			if err != nil {
				return err
			}
			if v != "2.1.0" {
				return s.Errorf(at, "SARIF version %q is not supported, expected 2.1.0", v)
			}
			sr.sawVersion = true
			return nil
		case "runs":
			c, err := s.Next()
			if err != nil {
				return err
			}
			if c == 'n' {
				return s.Errorf(s.Off(), "runs is null: the tool did not produce any run")
			}
			sr.sawRuns = true
			return s.Array("", "runs", func(int) error { return sr.readRun() })
		}
		return s.Skip(1)
	})
	if err != nil {
		return err
	}
	if !sr.sawRuns {
		return s.Errorf(s.Off(), "not a SARIF log: the object has no \"runs\" array")
	}
	return s.EndDoc("SARIF log")
}

func (sr *sarifReader) readRun() error {
	s := sr.sc
	what := fmt.Sprintf("runs[%d]", sr.runs)
	run := &sarifRun{idx: sr.runs, comps: map[int][]sarifRule{}, byID: map[string]*sarifRule{}}
	sr.runs++
	err := s.Object(what, "", func(key []byte) error {
		switch string(key) {
		case "tool":
			return sr.readTool(run, what+".tool")
		case "results":
			return sr.readResults(run, what+".results")
		case "originalUriBaseIds":
			return sr.readBases(run, what+".originalUriBaseIds")
		}
		return s.Skip(2)
	})
	if err != nil {
		return err
	}
	sr.finishRun(run)
	return nil
}

// sarifPrefix puts the path of the value being read in front of a
// ParseError's message ("runs[0].results[7]: level: ...").
func sarifPrefix(err error, path string) error {
	var pe *parse.Error
	if errors.As(err, &pe) && pe.Err == nil && !strings.HasPrefix(pe.Msg, "invalid JSON") && !strings.HasPrefix(pe.Msg, "unexpected end") {
		pe.Msg = path + ": " + pe.Msg
	}
	return err
}

// readObject reads an object (or null), calling member for each key (valid
// only during the call); member must consume the value.
func (sr *sarifReader) readObject(field string, member func(key []byte) error) error {
	s := sr.sc
	if null, err := s.Null(); null || err != nil {
		return err
	}
	return s.Object("", field, member)
}

// sarifRun is the state of one run.
type sarifRun struct {
	idx      int
	driver   string
	toolSeen bool
	comps    map[int][]sarifRule
	byID     map[string]*sarifRule
	rules    int
	bases    map[string]string         // originalUriBaseIds: name → file path prefix
	global   map[int]map[string]string // globalMessageStrings per component
	strBytes int                       // bytes of message strings kept

	pending []sarifPending
	groups  map[sarifGroupKey]*sarifGroup

	errType, errOther int // error-level results: "typecheck" rule, others
}

func (sr *sarifReader) finish() *decide.Evidence {
	ev := sr.ev
	ev.Findings = sr.keep.findings()
	ev.Omitted = sr.keep.omitted
	if !sr.sawVersion {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: no SARIF version given; read as 2.1.0", sr.name))
	}
	if sr.suppressed > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d suppressed %s ignored", sr.name, sr.suppressed, sarifPlural(sr.suppressed, "result", "results")))
	}
	if sr.notFail > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d %s of a kind other than fail (pass, informational, review, ...) ignored", sr.name, sr.notFail, sarifPlural(sr.notFail, "result", "results")))
	}
	if sr.extraStrings > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d message strings past the first %d MiB of a run not kept", sr.name, sr.extraStrings, sarifMaxStrings>>20))
	}
	if sr.absent > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d %s with baselineState absent (fixed) ignored", sr.name, sr.absent, sarifPlural(sr.absent, "result", "results")))
	}
	if sr.badScores > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d security-severity %s not a number; the level was used instead", sr.name, sr.badScores, sarifPlural(sr.badScores, "value was", "values were")))
	}
	if sr.unknownRef > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d %s a rule the tool does not list; read with the default level warning", sr.name, sr.unknownRef, sarifPlural(sr.unknownRef, "result names", "results name")))
	}
	if sr.extraRules > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d rules past the first %d of a run ignored", sr.name, sr.extraRules, sarifMaxRules))
	}
	if sr.overflow > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: results come before the tool's rules; %d of them were counted but could not be held for ranking", sr.name, sr.overflow))
	}
	if sr.uncompared > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: %d results before the tool's rules were not held, so not compared for repeats: all counted (counts may be too high)", sr.name, sr.uncompared))
	}
	ev.Notes = append(ev.Notes, sr.keep.dedupeNotes(sr.name)...)
	if n := ev.Omitted.Total(); n > 0 {
		ev.Notes = append(ev.Notes, fmt.Sprintf("%s: kept the %d most severe of %d findings; %d omitted", sr.name, len(ev.Findings), len(ev.Findings)+n, n))
	}
	return ev
}

func sarifPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
