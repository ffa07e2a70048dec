// Package load reads evidence files of any format gcloop knows: coverage
// and test reports through package coverage, critic evidence through
// package evidence, dispatched by content. It applies the fallbacks the
// loops prescribe for data that cannot be read.
package load

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/gcloop/gcloop/coverage"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/decide/evidence"
)

// Paths reads every evidence path; a directory stands for the
// readable files under it. loop, when known, picks the fallbacks of
// DESIGN §2.2 and §2.4 for files that cannot be read.
func Paths(paths []string, loop decide.Loop) ([]*decide.Evidence, error) {
	files, err := Expand(paths, Known)
	if err != nil {
		return nil, err
	}
	out := make([]*decide.Evidence, 0, len(files))
	for _, p := range files {
		e, err := File(p, loop)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Expand turns evidence paths into files: a file stands for itself, a
// directory for the regular files under it whose first bytes (at most
// SniffLen) known recognises, in name order. A path that does not exist,
// or a directory with no such file, is an error naming it.
func Expand(paths []string, known func(head []byte) bool) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("read evidence %s: %w", p, unwrapPathError(err))
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		files, err := knownUnder(p, known)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// knownUnder lists the files under dir that known recognises, in name
// order; other files are passed over.
func knownUnder(dir string, known func([]byte) bool) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read evidence %s: %w", dir, unwrapPathError(err))
	}
	sort.Strings(files)
	var out []string
	for _, f := range files {
		head, err := headOf(f)
		if err != nil {
			return nil, err
		}
		if known(head) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read evidence %s: no file in the directory is in a format gcloop reads", dir)
	}
	return out, nil
}

// headOf is the first SniffLen bytes of file p.
func headOf(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read evidence %s: %w", p, unwrapPathError(err))
	}
	defer f.Close()
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read evidence %s: %w", p, err)
	}
	return head[:n], nil
}

// File reads one evidence file.
func File(p string, loop decide.Loop) (*decide.Evidence, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read evidence %s: %w", p, unwrapPathError(err))
	}
	defer f.Close()
	return Read(p, f, loop)
}

// SniffLen is how many first bytes of a file Known needs.
const SniffLen = max(evidence.SniffLen, coverage.SniffLen)

// Head is the part of data that Known looks at.
func Head(data []byte) []byte { return data[:min(len(data), SniffLen)] }

// Known reports whether the first bytes of a file (at most SniffLen) are
// evidence gcloop reads.
func Known(head []byte) bool {
	return coverage.Sniff(head) != "" || evidence.Sniff(head) != ""
}

// Read reads one evidence file named p from r: coverage and test reports
// through package coverage, critic evidence through package evidence. loop,
// when known, picks the fallbacks of DESIGN §2.2 (unreadable critique data)
// and §2.4 (an unreadable validation report) for content that cannot be
// read.
func Read(p string, r io.Reader, loop decide.Loop) (*decide.Evidence, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(coverage.SniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("read evidence %s: %w", p, err)
	}
	var e *decide.Evidence
	if coverage.Sniff(head) != "" {
		e, err = coverage.Read(p, br)
	} else {
		e, err = evidence.Read(p, br)
	}
	if err == nil {
		return e, nil
	}
	var pe *decide.ParseError
	if !errors.As(err, &pe) {
		return nil, err
	}
	// Fallbacks the loops prescribe for data that cannot be read.
	switch loop {
	case decide.Critique:
		return &decide.Evidence{Sources: []string{p}, Critique: &decide.CritiqueFacts{Unreadable: err.Error()}, Notes: []string{err.Error()}}, nil
	case decide.Validation:
		if evidence.Sniff(head) == "" || evidence.Sniff(head) == evidence.FormatValidationReport {
			return &decide.Evidence{Sources: []string{p}, Validation: &decide.ValidationFacts{Unreadable: err.Error()}, Notes: []string{err.Error()}}, nil
		}
	}
	return nil, err
}

// unwrapPathError drops the *fs.PathError wrapper, whose path the caller
// already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
