package evidence

import (
	"fmt"
	"sort"

	"github.com/gcloop/gcloop/decide"
)

// keeper keeps at most max findings: a heap whose root is the least
// severe, latest finding, so a more severe (or equally severe but earlier)
// finding can replace it. Whatever it drops is counted in omitted.
type keeper struct {
	max     int // 0 means MaxFindings
	next    int // sequence of the last pushed finding
	items   []keptFinding
	omitted decide.Counts
	seen    fingerprints // findings offered, to count a repeat once
	dups    int          // repeats dropped
}

// duplicate reports whether f (with its severity and message set) repeats
// a finding already offered to this keeper; a repeat is counted once, as
// decide.Merge counts the same finding in two files (DESIGN §3).
func (k *keeper) duplicate(f decide.Finding) bool {
	if k.seen.seenBefore(f) {
		k.dups++
		return true
	}
	return false
}

// dedupeNotes says how many repeats were dropped and whether the
// fingerprint set ran out of room.
func (k *keeper) dedupeNotes(name string) []string {
	var notes []string
	if k.dups > 0 {
		notes = append(notes, fmt.Sprintf("%s: %d repeated %s (same file, line, severity and message) counted once", name, k.dups, sarifPlural(k.dups, "finding", "findings")))
	}
	if k.seen.full > 0 {
		notes = append(notes, fmt.Sprintf("%s: more than %d distinct findings; %d later ones could not be compared for repeats and were all counted (counts may be too high)", name, k.seen.limit(), k.seen.full))
	}
	return notes
}

type keptFinding struct {
	seq int
	f   decide.Finding
}

// ranksBelow orders findings for the heap: a ranks below b.
func ranksBelow(sa decide.Severity, qa int, sb decide.Severity, qb int) bool {
	if sa != sb {
		return sa > sb
	}
	return qa > qb
}

// wants reports whether a finding of severity sev at seq would be kept.
func (k *keeper) wants(sev decide.Severity, seq int) bool {
	if len(k.items) < k.limit() {
		return true
	}
	root := k.items[0]
	return ranksBelow(root.f.Severity, root.seq, sev, seq)
}

// add offers a finding; f.Severity must be set.
func (k *keeper) add(seq int, f decide.Finding) {
	if len(k.items) < k.limit() {
		k.items = append(k.items, keptFinding{seq: seq, f: f})
		k.up(len(k.items) - 1)
		return
	}
	if !k.wants(f.Severity, seq) {
		k.omitted.Add(f.Severity)
		return
	}
	k.omitted.Add(k.items[0].f.Severity)
	k.items[0] = keptFinding{seq: seq, f: f}
	k.down(0)
}

func (k *keeper) worse(i, j int) bool {
	a, b := &k.items[i], &k.items[j]
	return ranksBelow(a.f.Severity, a.seq, b.f.Severity, b.seq)
}

func (k *keeper) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !k.worse(i, p) {
			return
		}
		k.items[i], k.items[p] = k.items[p], k.items[i]
		i = p
	}
}

func (k *keeper) down(i int) {
	n := len(k.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		w := l
		if r := l + 1; r < n && k.worse(r, l) {
			w = r
		}
		if !k.worse(w, i) {
			return
		}
		k.items[i], k.items[w] = k.items[w], k.items[i]
		i = w
	}
}

// push offers the next finding in reading order. Do not mix push with add
// on one keeper.
func (k *keeper) push(f decide.Finding) {
	k.next++
	k.add(k.next, f)
}

// findings returns the kept findings in document order.
func (k *keeper) findings() []decide.Finding {
	if len(k.items) == 0 {
		return nil
	}
	sort.Slice(k.items, func(i, j int) bool { return k.items[i].seq < k.items[j].seq })
	out := make([]decide.Finding, len(k.items))
	for i := range k.items {
		out[i] = k.items[i].f
	}
	k.items = nil
	return out
}

func (k *keeper) limit() int {
	if k.max <= 0 {
		return MaxFindings
	}
	return k.max
}
