// Package text is a second tiny package; it uses calc, so a -coverpkg run
// of its tests also reports calc's blocks.
package text

import (
	"strings"

	"example.com/gomod/calc"
)

// Pad pads s with spaces to width n.
func Pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}

// Bar draws a bar of |n| stars.
func Bar(n int) string {
	n = calc.Clamp(calc.Abs(n), 0, 40)
	return strings.Repeat("*", n)
}

// Title capitalizes the first letter.
func Title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
