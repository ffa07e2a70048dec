package evidence

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// Format names a critic-evidence format.
type Format string

// The formats Sniff recognizes.
const (
	FormatReviewJSON       Format = "review-json"
	FormatReviewMarkdown   Format = "review-markdown"
	FormatTasksCSV         Format = "tasks-csv"
	FormatDiscoveries      Format = "discoveries"
	FormatAuditMarkdown    Format = "audit-markdown"
	FormatSARIF            Format = "sarif"
	FormatValidationReport Format = "validation-report"
	FormatCheckstyle       Format = "checkstyle"
)

// SniffLen is how much of a file Sniff looks at.
const SniffLen = 8 << 10

// sniffers in the order they are tried: the most specific shapes first.
var sniffers = []struct {
	format Format
	is     func([]byte) bool
	read   func(string, io.Reader) (*decide.Evidence, error)
}{
	{FormatSARIF, isSARIF, ReadSARIF},
	{FormatValidationReport, isValidationReport, ReadValidationReport},
	{FormatReviewJSON, isReviewJSON, ReadReviewJSON},
	{FormatDiscoveries, isDiscoveries, ReadDiscoveries},
	{FormatCheckstyle, isCheckstyle, ReadCheckstyle},
	{FormatTasksCSV, isTasksCSV, ReadTasksCSV},
	{FormatAuditMarkdown, isAuditMarkdown, ReadAuditMarkdown},
	{FormatReviewMarkdown, isReviewMarkdown, ReadReviewMarkdown},
}

// Sniff tells the format of critic evidence from its first bytes (at most
// SniffLen), or "" when it is none gcloop reads.
func Sniff(head []byte) Format {
	if len(head) > SniffLen {
		head = head[:SniffLen]
	}
	for _, s := range sniffers {
		if s.is(head) {
			return s.format
		}
	}
	return ""
}

// Read sniffs the format of an evidence file from its content and reads
// it. A file whose content is not recognised but whose name is
// validation-report*.json is read as a validation report, so that a broken
// report counts as a failed validation (DESIGN §2.4).
func Read(name string, r io.Reader) (*decide.Evidence, error) {
	br := bufio.NewReaderSize(r, SniffLen)
	head, err := br.Peek(SniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	f := Sniff(head)
	if f == "" && strings.HasPrefix(path.Base(name), "validation-report") {
		f = FormatValidationReport
	}
	const want = "want review JSON or markdown, tasks.csv, discoveries.ndjson, audit markdown, validation-report.json, SARIF 2.1.0, checkstyle XML, or a coverage/test report"
	switch {
	case f == "" && len(bytes.TrimSpace(head)) == 0 && len(head) < SniffLen:
		// As the coverage readers say it: an empty file is no format.
		return nil, decide.OffsetError(name, 0, "empty file: "+want)
	case f == "":
		return nil, &decide.ParseError{File: name, Offset: -1, Msg: "not a format gcloop reads (" + want + ")"}
	}
	return ReadAs(f, name, br)
}

// ReadAs reads an evidence file of a known format.
func ReadAs(f Format, name string, r io.Reader) (*decide.Evidence, error) {
	for _, s := range sniffers {
		if s.format == f {
			return s.read(name, r)
		}
	}
	return nil, fmt.Errorf("read %s: unknown format %q", name, f)
}
