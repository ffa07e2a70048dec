package evidence

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/gcloop/gcloop/coverage"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// Read reads one evidence file named name from r, in any format of the
// registry, told from its content (a file no rule recognises may still be
// told by its name, see Format.NamePrefix). loop, when known, picks the
// fallbacks the loops prescribe for content that cannot be read:
// unreadable critique data converges with a warning, and an unreadable
// validation report counts as a failed validation.
func Read(name string, r io.Reader, loop decide.Loop) (*decide.Evidence, error) {
	s, err := peek(name, r, anyEvidence)
	if err != nil {
		return nil, err
	}
	e, _, err := s.read()
	if err == nil {
		return e, nil
	}
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return nil, err
	}
	switch loop {
	case decide.Critique:
		return &decide.Evidence{Sources: []string{name}, Critique: &decide.CritiqueFacts{Unreadable: err.Error()}, Notes: []string{err.Error()}}, nil
	case decide.Validation:
		// Unless it is critic evidence of another kind, a file the
		// validation loop cannot read is its report.
		if f, ok := Sniff(s.head, Findings); !ok || f.Name == "validation-report" {
			return &decide.Evidence{Sources: []string{name}, Validation: &decide.ValidationFacts{Unreadable: err.Error()}, Notes: []string{err.Error()}}, nil
		}
	}
	return nil, err
}

// ReadReport reads a coverage or test report (the Reports families) named
// name from r, told from its content, and returns its format too: what
// `gcloop coverage` reads. Coverage formats fill Evidence.Coverage, JUnit
// fills Evidence.Tests, run-<layer>.json both.
func ReadReport(name string, r io.Reader) (*decide.Evidence, Format, error) {
	s, err := peek(name, r, reports)
	if err != nil {
		return nil, Format{}, err
	}
	return s.read()
}

// ReadTests reads test results, for the coverage guard's baseline or
// after-report: `go test -json` output (see coverage.IsGoTestJSON) or a
// report ReadReport reads that holds test cases (JUnit XML). Anything else
// is an error naming the file.
func ReadTests(name string, r io.Reader) (*decide.TestFacts, error) {
	br := bufio.NewReaderSize(r, SniffLen)
	head, _ := br.Peek(SniffLen)
	if coverage.IsGoTestJSON(head) {
		return coverage.ReadGoTestJSON(name, br)
	}
	e, _, err := ReadReport(name, br)
	if err != nil {
		return nil, err
	}
	if e.Tests == nil || len(e.Tests.Cases) == 0 && e.Tests.Passed+e.Tests.Failed+e.Tests.Skipped == 0 {
		return nil, fmt.Errorf("%s: not test results: want JUnit XML or go test -json output", name)
	}
	return e.Tests, nil
}

// stream is a file whose first bytes have been looked at.
type stream struct {
	name string
	br   *bufio.Reader
	head []byte // at most SniffLen first bytes, valid until br is read
	w    wording
}

// peek buffers r and looks at its first bytes.
func peek(name string, r io.Reader, w wording) (*stream, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(SniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, w.peekFailed(name, err)
	}
	return &stream{name: name, br: br, head: head, w: w}, nil
}

// read tells the format of the stream among the families of its wording
// and reads it; the format is returned also with an error of its reader.
func (s *stream) read() (*decide.Evidence, Format, error) {
	f, ok := Sniff(s.head, s.w.in)
	if !ok {
		f, ok = byName(s.name, s.w.in)
	}
	if !ok {
		return nil, Format{}, s.w.unknown(s.name, s.head)
	}
	e, err := f.Read(s.name, s.br)
	if err != nil {
		return nil, f, err
	}
	return e, f, nil
}

// byName finds the format of the families in that claims files of name
// that no rule recognises.
func byName(name string, in Family) (Format, bool) {
	base := path.Base(name)
	for _, f := range registry {
		if f.Family&in != 0 && f.NamePrefix != "" && strings.HasPrefix(base, f.NamePrefix) {
			return f, true
		}
	}
	return Format{}, false
}

// wording is how a reader of some families refuses a file: the words its
// command has always said, which scripts may match.
type wording struct {
	in         Family
	peekFailed func(name string, err error) error
	unknown    func(name string, head []byte) error
}

var (
	// anyEvidence is Read's: any evidence, as gcloop decide, gcloop run
	// and the bot read it.
	anyEvidence = wording{
		in:         Any,
		peekFailed: func(name string, err error) error { return fmt.Errorf("read evidence %s: %w", name, err) },
		unknown: func(name string, head []byte) error {
			const want = "want review JSON or markdown, tasks.csv, discoveries.ndjson, audit markdown, validation-report.json, SARIF 2.1.0, checkstyle XML, or a coverage/test report"
			if len(bytes.TrimSpace(head)) == 0 && len(head) < SniffLen {
				return parse.OffsetError(name, 0, "empty file: "+want)
			}
			return &parse.Error{File: name, Offset: -1, Msg: "not a format gcloop reads (" + want + ")"}
		},
	}
	// reports is ReadReport's: coverage and test reports, as gcloop
	// coverage reads them.
	reports = wording{
		in: Reports,
		peekFailed: func(name string, err error) error {
			return &parse.Error{File: name, Offset: 0, Msg: "read failed", Err: err}
		},
		unknown: func(name string, head []byte) error {
			if len(head) == 0 {
				return parse.OffsetError(name, 0, "empty file: want a coverage or test report")
			}
			return parse.LineError(name, 1, "unknown format: want a Go cover profile, LCOV, Cobertura, JaCoCo or Clover XML, JUnit XML or run-<layer>.json")
		},
	}
)
