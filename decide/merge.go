package decide

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"unicode"
)

// Merge combines the evidence of several files (DESIGN §3): findings add
// up, the same finding reported twice (same file, line, severity, rule id
// and normalized message) counts once, an explicit score or signal is kept
// with the file it came from, and two explicit but different scores or
// signals are an error naming both files.
func Merge(pieces ...*Evidence) (*Evidence, error) {
	out := &Evidence{}
	n := 0
	for _, p := range pieces {
		if p != nil {
			n += len(p.Findings)
		}
	}
	if n > 0 {
		out.Findings = make([]Finding, 0, n)
	}
	var h DedupeHasher
	seen := make(map[[2]uint64]struct{}, n)
	for _, p := range pieces {
		if p == nil {
			continue
		}
		from := strings.Join(p.Sources, ", ")
		out.Sources = append(out.Sources, p.Sources...)
		for _, f := range p.Findings {
			fp := h.Sum(f)
			if _, dup := seen[fp]; dup {
				continue
			}
			seen[fp] = struct{}{}
			out.Findings = append(out.Findings, f)
		}
		out.Omitted.Critical += p.Omitted.Critical
		out.Omitted.High += p.Omitted.High
		out.Omitted.Medium += p.Omitted.Medium
		out.Omitted.Low += p.Omitted.Low
		out.Analysis = out.Analysis || p.Analysis
		out.LintErrors += p.LintErrors
		out.TypeErrors += p.TypeErrors
		out.Notes = append(out.Notes, p.Notes...)
		var err error
		if out.Review, err = mergeReview(out.Review, p.Review, from); err != nil {
			return nil, err
		}
		if out.Audit, err = mergeAudit(out.Audit, p.Audit, from); err != nil {
			return nil, err
		}
		if out.Validation, err = mergeValidation(out.Validation, p.Validation, from, out.Sources); err != nil {
			return nil, err
		}
		out.Critique = mergeCritique(out, p.Critique, from)
		out.Coverage = MergeCoverage(out.Coverage, p.Coverage)
		out.Tests = mergeTests(out, p.Tests)
	}
	return out, nil
}

// DedupeHasher computes a finding's fingerprint: a 128-bit hash (two 64-bit
// hashes of different seeds) of its DedupeKey, never zero. Merge and the
// readers keep fingerprints rather than keys to count a finding repeated
// once. The zero value seeds itself on first use; copies made by Fork share
// the seeds and have their own scratch, one for each goroutine.
type DedupeHasher struct {
	seeds   [2]maphash.Seed
	scratch []byte
}

func (h *DedupeHasher) seed() {
	if h.seeds[0] == (maphash.Seed{}) {
		h.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	}
}

// Sum returns the fingerprint of f.
func (h *DedupeHasher) Sum(f Finding) [2]uint64 {
	h.seed()
	h.scratch = AppendDedupeKey(h.scratch[:0], f)
	fp := [2]uint64{maphash.Bytes(h.seeds[0], h.scratch), maphash.Bytes(h.seeds[1], h.scratch)}
	fp[0] |= 1 // never zero: a set may use zero for an empty slot
	return fp
}

// Fork returns a hasher of h's seeds with a scratch of its own.
func (h *DedupeHasher) Fork() DedupeHasher {
	h.seed()
	return DedupeHasher{seeds: h.seeds}
}

// DedupeKey identifies the same finding (DESIGN §3): same file, line,
// severity, rule id where the format has one (Finding.RuleIsID: SARIF's
// ruleId, Checkstyle's source — not a review's dimension, which its
// discoveries twin may lack) and normalized message. Two rules at one
// location are two findings even when their messages read alike. Readers
// use it to count a finding repeated within one log once, as Merge does
// across files.
func DedupeKey(f Finding) string {
	return string(AppendDedupeKey(nil, f))
}

// AppendDedupeKey appends DedupeKey(f) to dst without other allocation
// for ASCII messages, for readers that fingerprint every finding.
func AppendDedupeKey(dst []byte, f Finding) []byte {
	dst = append(dst, f.File...)
	dst = append(dst, 0)
	dst = strconv.AppendInt(dst, int64(f.Line), 10)
	dst = append(dst, 0)
	dst = strconv.AppendInt(dst, int64(f.Severity), 10)
	dst = append(dst, 0)
	if f.RuleIsID {
		dst = append(dst, f.Rule...)
	}
	dst = append(dst, 0)
	start := len(dst)
	dst, ok := appendNormalASCII(dst, f.Message)
	if !ok {
		return append(dst[:start], normalizeMessage(f.Message, false)...)
	}
	for len(dst) > start && strings.IndexByte(".:;!, ", dst[len(dst)-1]) >= 0 {
		dst = dst[:len(dst)-1]
	}
	return dst
}

// SWAR constants of appendNormalASCII.
const (
	asciiHighs = 0x8080808080808080
	asciiBytes = 0x0101010101010101
	asciiLow7  = 0x7f7f7f7f7f7f7f7f
)

// appendNormalASCII appends normalizeMessage(s, false) for an ASCII s,
// but for dropping trailing punctuation: lower-cased, white space
// collapsed to one space and dropped at the ends. ok is false when s has
// a byte of 0x80 or above (dst then holds anything past its length
// before).
//
// Eight bytes at a time: a word with no byte below 0x20 and none of 0x80
// or above, whose spaces are single (not two in a row, nor one after a
// space pending before it) and that does not start the message with a
// space, reads as itself lower-cased — 0x20 added to each byte from 'A'
// to 'Z', which no carry crosses since every byte is below 0x80 — and is
// appended whole; a space it ends with is held back as pending, as the
// byte loop holds one. Any other word is read byte by byte.
func appendNormalASCII(dst []byte, s string) (_ []byte, ok bool) {
	start, space := len(dst), false
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8] // one bounds check, and the eight loads become one
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if x&asciiHighs != 0 {
			return dst, false
		}
		// A byte below 0x20 borrows; the lowest such byte is always
		// flagged (borrows only run upwards), so no flag means none.
		z := x ^ 0x20*asciiBytes
		sp := ^((z&asciiLow7 + asciiLow7) | z | asciiLow7) // 0x80 in each space, exactly
		if (x-0x20*asciiBytes)&asciiHighs == 0 && sp&(sp<<8) == 0 && (sp&0x80 == 0 || !space && len(dst) > start) {
			upper := (x + (0x80-'A')*asciiBytes) &^ (x + (0x7f-'Z')*asciiBytes) & asciiHighs
			x |= upper >> 2 // 0x20 in each upper-case letter
			if space {
				dst = append(dst, ' ')
			}
			dst = binary.LittleEndian.AppendUint64(dst, x)
			if space = x>>56 == ' '; space {
				dst = dst[:len(dst)-1]
			}
			continue
		}
		if dst, space, ok = appendNormalBytes(dst, s[i:i+8], start, space); !ok {
			return dst, false
		}
	}
	dst, _, ok = appendNormalBytes(dst, s[i:], start, space)
	return dst, ok
}

// appendNormalBytes is appendNormalASCII byte by byte, with the state
// (start of the message in dst, a space pending) carried between calls.
func appendNormalBytes(dst []byte, s string, start int, space bool) (_ []byte, _ bool, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			space = len(dst) > start
			continue
		}
		if c >= 0x80 {
			return dst, space, false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if space {
			dst = append(dst, ' ')
			space = false
		}
		dst = append(dst, c)
	}
	return dst, space, true
}

// normalizeMessage lower-cases a message, collapses white space and drops
// trailing punctuation; with digits set, runs of digits become '#', so
// that "complexity 25" and "complexity 26" read alike across rounds.
func normalizeMessage(s string, digits bool) string {
	var b strings.Builder
	space, digit := false, false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case digits && unicode.IsDigit(r):
			if digit {
				continue
			}
			r = '#'
			digit = true
		default:
			digit = false
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), ".:;!, ")
}

func mergeScore(dst **float64, dstFrom *string, src *float64, srcFrom, what string) error {
	if src == nil {
		return nil
	}
	if *dst == nil {
		*dst, *dstFrom = src, srcFrom
		return nil
	}
	if **dst != *src {
		return fmt.Errorf("conflicting %s: %g in %s, %g in %s", what, **dst, *dstFrom, *src, srcFrom)
	}
	return nil
}

func mergeSignal(dst, dstFrom *string, src, srcFrom, what string) error {
	if src == "" {
		return nil
	}
	if *dst == "" {
		*dst, *dstFrom = src, srcFrom
		return nil
	}
	if *dst != src {
		return fmt.Errorf("conflicting %s: %s in %s, %s in %s", what, *dst, *dstFrom, src, srcFrom)
	}
	return nil
}

func mergeReview(dst, src *ReviewFacts, from string) (*ReviewFacts, error) {
	if src == nil {
		return dst, nil
	}
	if dst == nil {
		dst = &ReviewFacts{}
	}
	if err := mergeScore(&dst.Score, &dst.ScoreFrom, src.Score, orFrom(src.ScoreFrom, from), "review scores"); err != nil {
		return nil, err
	}
	if err := mergeSignal(&dst.Signal, &dst.SignalFrom, src.Signal, orFrom(src.SignalFrom, from), "review signals"); err != nil {
		return nil, err
	}
	if dst.Summary == "" {
		dst.Summary = src.Summary
	}
	return dst, nil
}

func mergeAudit(dst, src *AuditFacts, from string) (*AuditFacts, error) {
	if src == nil {
		return dst, nil
	}
	if dst == nil {
		dst = &AuditFacts{}
	}
	if err := mergeScore(&dst.Score, &dst.ScoreFrom, src.Score, orFrom(src.ScoreFrom, from), "audit scores"); err != nil {
		return nil, err
	}
	if err := mergeSignal(&dst.Signal, &dst.SignalFrom, src.Signal, orFrom(src.SignalFrom, from), "audit signals"); err != nil {
		return nil, err
	}
	dst.Dimensions = append(dst.Dimensions, src.Dimensions...)
	dst.Artifacts = append(dst.Artifacts, src.Artifacts...)
	if dst.Summary == "" {
		dst.Summary = src.Summary
	}
	return dst, nil
}

func mergeValidation(dst, src *ValidationFacts, from string, sources []string) (*ValidationFacts, error) {
	if src == nil {
		return dst, nil
	}
	if dst != nil {
		return nil, fmt.Errorf("several validation reports (%s): give one per round", strings.Join(sources, ", "))
	}
	return src, nil
}

func mergeCritique(out *Evidence, src *CritiqueFacts, from string) *CritiqueFacts {
	dst := out.Critique
	if src == nil {
		return dst
	}
	if dst == nil {
		c := *src
		return &c
	}
	dst.Entries += src.Entries
	switch {
	case src.Summary == nil:
	case dst.Summary == nil:
		dst.Summary = src.Summary
	case *dst.Summary != *src.Summary:
		out.Notes = append(out.Notes, fmt.Sprintf("two severity summaries differ; kept the first, ignored the one in %s", from))
	}
	if dst.Unreadable == "" {
		dst.Unreadable = src.Unreadable
	}
	return dst
}

// MergeCoverage combines the coverage of two reports of one round. Files
// only one report has add up; a file both report keeps the figures of the
// report that saw more of its lines (reports of one source file from two
// tools count the same lines, so adding them would double it). Line totals
// win over a bare percentage.
func MergeCoverage(a, b *CoverageFacts) *CoverageFacts {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := &CoverageFacts{Format: a.Format + "+" + b.Format, Layer: a.Layer, Framework: a.Framework}
	if out.Layer == "" {
		out.Layer = b.Layer
	}
	if out.Framework == "" {
		out.Framework = b.Framework
	}
	if a.Total == 0 && b.Total == 0 && len(a.Files) == 0 && len(b.Files) == 0 {
		// Only percentages: keep the first stated one.
		out.Percent = a.Percent
		if out.Percent == nil {
			out.Percent = b.Percent
		}
		return out
	}
	index := make(map[string]int)
	for _, set := range [][]FileCoverage{a.Files, b.Files} {
		for _, f := range set {
			i, ok := index[f.Path]
			if !ok {
				index[f.Path] = len(out.Files)
				out.Files = append(out.Files, f)
				continue
			}
			if f.Total > out.Files[i].Total || (f.Total == out.Files[i].Total && f.Covered > out.Files[i].Covered) {
				out.Files[i] = f
			}
		}
	}
	for _, f := range out.Files {
		out.Covered += f.Covered
		out.Total += f.Total
	}
	if len(out.Files) == 0 {
		out.Covered = a.Covered + b.Covered
		out.Total = a.Total + b.Total
	}
	return out
}

// mergeTests adds test results up. Results with test cases (JUnit) win
// over bare counts (run-<layer>.json) of the same round, which would count
// the same tests twice.
func mergeTests(out *Evidence, src *TestFacts) *TestFacts {
	dst := out.Tests
	if src == nil {
		return dst
	}
	if dst == nil {
		t := *src
		t.Cases = append([]TestCase(nil), src.Cases...)
		return &t
	}
	switch {
	case len(src.Cases) > 0 && len(dst.Cases) == 0:
		out.Notes = append(out.Notes, "test counts of the run summary replaced by the test report's cases")
		t := *src
		t.Cases = append([]TestCase(nil), src.Cases...)
		return &t
	case len(src.Cases) == 0 && len(dst.Cases) > 0:
		out.Notes = append(out.Notes, "test counts of the run summary ignored: the test report's cases count")
		return dst
	}
	dst.Passed += src.Passed
	dst.Failed += src.Failed
	dst.Skipped += src.Skipped
	dst.Cases = append(dst.Cases, src.Cases...)
	if dst.PassRate != nil || src.PassRate != nil {
		dst.PassRate = nil // recomputed from the sums
	}
	return dst
}

func orFrom(s, from string) string {
	if s != "" {
		return s
	}
	return from
}
