package guard

import (
	"bytes"
	"strings"
)

// Bounds of the exact line diff. Past them the diff falls back to comparing
// the multisets of lines, which still finds every added line but may call a
// line added that an exact diff would pair with an old one further away.
const (
	maxDiffLines = 20000 // lines left after trimming the common prefix and suffix
	maxDiffEdits = 1000  // edit distance the Myers search explores
)

// splitLines splits content into lines without their "\n" or "\r\n".
// A final line without newline counts; an empty content has no lines.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// isBinary reports whether content holds a NUL byte anywhere (Git looks at
// the first 8000 bytes only, which would let a NUL early in a file hide
// the lines after it from the guard).
func isBinary(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0
}

// lineDiff compares old and new lines and reports which lines of new are
// added and which lines of old are deleted.
func lineDiff(old, new []string) (added, deleted []bool) {
	added = make([]bool, len(new))
	deleted = make([]bool, len(old))
	ids := map[string]int32{}
	intern := func(ls []string) []int32 {
		out := make([]int32, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	a, b := intern(old), intern(new)
	// Trim the common prefix and suffix: most edits touch a small middle.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	addM, delM := added[pre:len(b)-suf], deleted[pre:len(a)-suf]
	switch {
	case len(am) == 0:
		for i := range addM {
			addM[i] = true
		}
	case len(bm) == 0:
		for i := range delM {
			delM[i] = true
		}
	case len(am)+len(bm) > maxDiffLines || !myers(am, bm, addM, delM):
		multisetDiff(am, bm, addM, delM)
	}
	return added, deleted
}

// multisetDiff marks as added every line of b beyond the number of times
// it occurs in a (the later occurrences), and likewise for deleted lines.
func multisetDiff(a, b []int32, added, deleted []bool) {
	count := map[int32]int{}
	for _, x := range a {
		count[x]++
	}
	for i, y := range b {
		if count[y] > 0 {
			count[y]--
		} else {
			added[i] = true
		}
	}
	count = map[int32]int{}
	for _, y := range b {
		count[y]++
	}
	for i, x := range a {
		if count[x] > 0 {
			count[x]--
		} else {
			deleted[i] = true
		}
	}
}

// myers runs the O(ND) shortest-edit-script search of Myers (1986) and
// marks added and deleted lines. It gives up, returning false, when the
// edit distance exceeds maxDiffEdits.
func myers(a, b []int32, added, deleted []bool) bool {
	n, m := len(a), len(b)
	maxD := n + m
	if maxD > maxDiffEdits {
		maxD = maxDiffEdits
	}
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	// trace[d] holds v[off-d-1 .. off+d+1] as it was before step d.
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				backtrack(trace, n, m, added, deleted)
				return true
			}
		}
	}
	return false
}

// backtrack walks the saved search frontiers from (n, m) back to (0, 0),
// marking the edit of each step.
func backtrack(trace [][]int, n, m int, added, deleted []bool) {
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		w := trace[d]
		at := func(k int) int { return w[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		// The step went from (px, py) by one edit, then along a snake of
		// equal lines to (x, y).
		if pk == k+1 {
			added[py] = true // a down move: b[py] inserted
		} else {
			deleted[px] = true // a right move: a[px] removed
		}
		x, y = px, py
	}
}
