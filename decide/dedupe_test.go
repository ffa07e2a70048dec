package decide

import (
	"fmt"
	"slices"
	"sort"
	"testing"
)

// AppendDedupeKey's ASCII path writes exactly the key normalizeMessage
// gives.
func TestAppendDedupeKeyIsDedupeKey(t *testing.T) {
	t.Parallel()
	msgs := []string{"", "Plain", "  Lead and trail  ", "Tabs\tand\nnew\r\nlines\v\f", "End with punct.:;!, ", ".,", "UPPER lower 123", "Crème brûlée ÉTÉ", "a\u00a0b\u0085c", "İstanbul",
		// Eight bytes at a time: whole words, white space and control
		// characters at each place of a word, the bytes around 'A'..'Z',
		// a byte of 0x80 or above in a later word.
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{ abcdefghijklmnopqrstuvwxyz", "@@@@@@@@[[[[[[[[````````{{{{{{{{ZZZZZZZZAAAAAAAA",
		"12345678 2345678  345678\t\t45678\n\n\n5678 \v \f678     78      8       ", "x\x00y\x01z\x1fw\x7fABCDEFGH\x20\x21IJKLMNOP",
		"        LEADING EIGHT SPACES        then MORE....", "Value 123 of PARAMETER is never used after the assignment in this function.",
		"An ASCII start of sixteen bytes, then é", "sixteen bytes!!!É", "END WITH EIGHT!!,,;;::", "        ",
	}
	for i, m := range msgs {
		f := Finding{File: "a.go", Line: 42, Severity: High, Rule: []string{"", "G101", "security"}[i%3], RuleIsID: i%2 == 0, Message: m}
		rule := ""
		if f.RuleIsID {
			rule = f.Rule
		}
		want := fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%s", f.File, f.Line, f.Severity, rule, normalizeMessage(f.Message, false))
		if got := string(AppendDedupeKey([]byte("x"), f))[1:]; got != want {
			t.Errorf("%q: key %q, want %q", m, got, want)
		}
	}
}

func FuzzAppendDedupeKey(f *testing.F) {
	f.Add("Some Message.", "a.go", "G101", 3)
	f.Fuzz(func(t *testing.T, msg, file, rule string, line int) {
		fd := Finding{File: file, Line: line, Severity: Medium, Rule: rule, RuleIsID: true, Message: msg}
		want := fmt.Sprintf("%s\x00%d\x00%d\x00%s\x00%s", fd.File, fd.Line, fd.Severity, fd.Rule, normalizeMessage(fd.Message, false))
		if got := DedupeKey(fd); got != want {
			t.Fatalf("key %q, want %q", got, want)
		}
	})
}

// The key tells two rules at one location apart, and nothing else that a
// repeat of the same finding may change: the message's case, spacing and
// trailing punctuation, the suggestion and the evidence file it came from.
func TestDedupeKeySameFindingOnly(t *testing.T) {
	t.Parallel()
	base := Finding{Severity: High, File: "a.go", Line: 3, Rule: "G101", RuleIsID: true, Message: "Hardcoded credentials.", Source: "gosec.sarif"}
	tests := []struct {
		name string
		edit func(*Finding)
		same bool
	}{
		{"another rule", func(f *Finding) { f.Rule = "G102" }, false},
		{"no rule", func(f *Finding) { f.Rule = "" }, false},
		{"the rule not an id", func(f *Finding) { f.RuleIsID = false }, false},
		{"another line", func(f *Finding) { f.Line = 4 }, false},
		{"another file", func(f *Finding) { f.File = "b.go" }, false},
		{"another severity", func(f *Finding) { f.Severity = Medium }, false},
		{"another message", func(f *Finding) { f.Message = "Weak crypto." }, false},
		{"the message cased and spaced otherwise", func(f *Finding) { f.Message = "  hardcoded   CREDENTIALS " }, true},
		{"another source and suggestion", func(f *Finding) { f.Source, f.Suggestion = "review-results.json:4", "Use a vault." }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := base
			tt.edit(&f)
			if same := DedupeKey(f) == DedupeKey(base); same != tt.same {
				t.Errorf("same key = %v, want %v (%q vs %q)", same, tt.same, DedupeKey(f), DedupeKey(base))
			}
		})
	}
}

// BenchmarkAppendDedupeKey builds the key of a linter's typical finding.
func BenchmarkAppendDedupeKey(b *testing.B) {
	f := Finding{File: "internal/pkg07/file0427.go", Line: 1234, Severity: Medium, Rule: "L042", RuleIsID: true,
		Message: "value 12345 of parameter is never used after the assignment in this function"}
	var dst []byte
	for b.Loop() {
		dst = AppendDedupeKey(dst[:0], f)
	}
}

// sortedBySeverity orders findings as a stable sort by severity does, also
// with severities out of range.
func FuzzSortedBySeverity(f *testing.F) {
	f.Add([]byte{1, 4, 2, 2, 3, 1, 4})
	f.Add([]byte{0, 3, 9, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, sev []byte) {
		fs := make([]Finding, len(sev))
		for i, s := range sev {
			fs[i] = Finding{Severity: Severity(s % 7), Line: i}
		}
		want := slices.Clone(fs)
		sort.SliceStable(want, func(i, j int) bool { return want[i].Severity < want[j].Severity })
		got := sortedBySeverity(fs)
		if len(fs) == 0 {
			want = nil
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%v: got %v, want %v", sev, got, want)
		}
	})
}
