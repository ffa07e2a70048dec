package jsonscan

import "io"

// FromBytes returns a scanner of the JSON document b, read in place: b is
// neither copied nor written to, a number's length is not capped (it is
// in memory already), and Skip enters values nested up to maxDepth deep
// (0: MaxDepth). For documents already in memory, such as a webhook's
// payload.
func FromBytes(name string, b []byte, maxDepth int) *Scanner {
	return &Scanner{name: name, buf: b, end: len(b), rerr: io.EOF, maxDepth: maxDepth}
}

// depthLimit is the nesting Skip enters at most.
func (s *Scanner) depthLimit() int {
	if s.maxDepth > 0 {
		return s.maxDepth
	}
	return MaxDepth
}
