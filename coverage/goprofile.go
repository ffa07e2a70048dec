package coverage

import (
	"bytes"
	"cmp"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"strconv"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// ReadGoProfile reads a Go cover profile, as written by `go test
// -coverprofile` in any of the modes set, count and atomic:
//
//	mode: set
//	example.com/m/file.go:12.34,15.2 3 1
//
// Coverage is statement coverage over every block of the profile, with
// duplicate blocks (same file and range) merged: a block is covered when
// any of its copies has a count above zero. That is the percentage `go test
// -cover` prints. Several profiles concatenated into one (as `go test
// -coverpkg` writes, or `cat a.out b.out`) are accepted when their mode
// lines agree.
//
// Memory is bounded by the largest file, not the whole profile. The blocks
// of the file being read are kept in a slice; when the profile moves on to
// another file, that file is closed: its blocks are sorted (a no-op for
// profiles written by go test, whose blocks come in source order), merged
// when duplicated, counted, and reduced to a summary of a hash of its block
// ranges and statement counts plus one bit per block saying whether it was
// covered (no bits at all when every block or no block was covered). When
// the same file appears again later — as it does in merged profiles, where
// every test binary reports every package it instruments — the new run of
// blocks is closed the same way and, when its hash matches, its covered bits
// are OR-ed with the summary's, which is exactly the duplicate-block merge of
// `go tool cover`. Block sets that differ for the same file (profiles of
// different builds) cannot be merged that way and are an error naming both
// lines.
//
// A large profile is parsed on all available cores (GOMAXPROCS): it is cut
// into parts of about 256 KiB at lines where the file changes, each part
// is parsed on its own, and the parts' runs of blocks are merged in input
// order. The result, and the error for a bad profile (its first bad line in
// file order), are the same as reading it line by line.
func ReadGoProfile(name string, r io.Reader) (*decide.CoverageFacts, error) {
	return readGoProfile(name, r, profSplit{workers: runtime.GOMAXPROCS(0), chunk: profChunkSize, maxChunk: profMaxChunk})
}

func readGoProfile(name string, r io.Reader, sp profSplit) (*decide.CoverageFacts, error) {
	t := &profTally{name: name, done: make(map[string]*profSummary)}
	if err := t.read(r, sp); err != nil {
		return nil, err
	}
	facts := &decide.CoverageFacts{Format: string(FormatGoProfile), Files: t.files}
	for _, f := range t.files {
		facts.Covered += f.Covered
		facts.Total += f.Total
	}
	return facts, nil
}

// profBlock is one block of the file being read.
type profBlock struct {
	start, end uint64 // line<<32 | column, of the start and of the end
	stmts      uint32
	hit        bool
	line       int // profile line, for error messages
}

func profLess(a, b *profBlock) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	return cmp.Compare(a.end, b.end)
}

// profPos is the line and column of a block's start or end, for messages.
func profPos(pos uint64) string {
	return strconv.FormatUint(pos>>32, 10) + "." + strconv.FormatUint(pos&(1<<32-1), 10)
}

// profRun is one run of blocks of a file (consecutive block lines of that
// file), sorted, merged and counted.
type profRun struct {
	file    string
	line    int    // profile line where the run started
	hash    uint64 // of the sorted, merged block ranges and statement counts
	n       int    // number of distinct blocks
	hits    int    // of them covered
	total   int64  // statements
	covered int64  // statements in covered blocks
	bits    []uint64
	stmts   []uint32 // statements per block, valid while the run is folded
}

// profSink receives what a parser reads, in input order: mode lines and
// runs of blocks.
type profSink interface {
	mode(m []byte, line int) error
	run(r *profRun) error
}

// profParser reads the lines of a profile, or of a part of one, into runs.
type profParser struct {
	s        *lineScanner
	sink     profSink
	modeSeen bool // a mode line came before (block lines are allowed)
	opened   bool // a block line was accepted

	// pending is called in place of closing a file when the first block
	// line is accepted or at the end: it folds the run of the part before.
	pending func() error

	cur      string // file being read, "" before the first block
	prefix   []byte // cur + ":"
	curLine  int    // profile line where its run started
	blocks   []profBlock
	unsorted bool      // the blocks may be out of order (set when in doubt)
	paths    profPaths // the paths that read block lines
	stmts    []uint32  // scratch for the run being closed
	words    []uint64  // scratch for its covered bits
	run      profRun   // the run being closed
}

// parse reads lines up to the end of the input. The run being read is
// left open: end closes it.
func (p *profParser) parse() error {
	s := p.s
	for {
		if p.cur != "" {
			p.fastBlocks()
		}
		line, ok := s.Next()
		if !ok {
			break
		}
		if len(line) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte("mode:")) {
			if err := p.modeLine(line); err != nil {
				return err
			}
			continue
		}
		if !p.modeSeen {
			return s.errorf("want a \"mode: set|count|atomic\" line first, found %s", quoteSnippet(line))
		}
		if err := p.blockLine(line); err != nil {
			return err
		}
	}
	return s.failure()
}

// end finishes a whole profile (or its last part): the profile must have
// had a mode line, and the file being read is closed.
func (p *profParser) end() error {
	if !p.modeSeen {
		return parse.LineError(p.s.name, p.s.Line()+1, "empty Go cover profile: want a \"mode: set|count|atomic\" line")
	}
	return p.closeFile()
}

func (p *profParser) modeLine(line []byte) error {
	m := bytes.TrimSpace(line[len("mode:"):])
	switch string(m) {
	case "set", "count", "atomic":
	default:
		return p.s.errorf("unknown cover mode %s (want set, count or atomic)", quoteSnippet(m))
	}
	p.modeSeen = true
	return p.sink.mode(m, p.s.Line())
}

// blockLine reads "file:sl.sc,el.ec stmts count".
func (p *profParser) blockLine(line []byte) error {
	colon := bytes.LastIndexByte(line, ':')
	if colon <= 0 {
		return p.s.errorf("want \"file:line.col,line.col statements count\", found %s", quoteSnippet(line))
	}
	file, rest := line[:colon], line[colon+1:]
	var b profBlock
	var ok bool
	var v [6]int64
	seps := [6]byte{'.', ',', '.', ' ', ' ', 0}
	for i := range v {
		if i == 5 && len(rest) > 0 && rest[0] == '-' {
			return p.s.errorf("negative count %s: counts are never below zero", quoteSnippet(rest))
		}
		v[i], rest, ok = parseUint(rest)
		if !ok || v[i] > 1<<31 && i < 5 {
			return p.s.errorf("bad number in %s: want \"file:line.col,line.col statements count\"", quoteSnippet(line))
		}
		if i < 5 {
			if len(rest) == 0 || rest[0] != seps[i] {
				return p.s.errorf("want \"file:line.col,line.col statements count\", found %s", quoteSnippet(line))
			}
			rest = rest[1:]
		}
	}
	if len(rest) != 0 {
		return p.s.errorf("unexpected %s after the count", quoteSnippet(rest))
	}
	b.start, b.end = uint64(v[0])<<32|uint64(v[1]), uint64(v[2])<<32|uint64(v[3])
	b.stmts, b.hit, b.line = uint32(v[4]), v[5] > 0, p.s.Line()
	if b.end < b.start {
		return p.s.errorf("block ends (%d.%d) before it starts (%d.%d)", v[2], v[3], v[0], v[1])
	}
	p.opened = true
	if string(file) != p.cur {
		if err := p.closeFile(); err != nil {
			return err
		}
		p.cur = string(file)
		p.curLine = p.s.Line()
		p.prefix = append(append(p.prefix[:0], file...), ':')
	}
	if n := len(p.blocks); n > 0 && !p.unsorted && profLess(&p.blocks[n-1], &b) >= 0 {
		p.unsorted = true
	}
	p.blocks = append(p.blocks, b)
	return nil
}

// closeFile hands the run of blocks just read (and, first, the run left
// pending by the part before) to the sink.
func (p *profParser) closeFile() error {
	if p.pending != nil {
		fold := p.pending
		p.pending = nil
		if err := fold(); err != nil {
			return err
		}
	}
	if p.cur == "" {
		return nil
	}
	if err := p.finish(&p.run); err != nil {
		return err
	}
	return p.sink.run(&p.run)
}

// finish sorts, merges and counts the run of blocks just read into r, and
// starts a new run.
func (p *profParser) finish(r *profRun) error {
	blocks := p.blocks
	if p.unsorted {
		slices.SortStableFunc(blocks, func(a, b profBlock) int { return profLess(&a, &b) })
		// Merge duplicates in place.
		out := blocks[:1]
		for i := 1; i < len(blocks); i++ {
			last, b := &out[len(out)-1], &blocks[i]
			if profLess(last, b) != 0 {
				out = append(out, *b)
				continue
			}
			if last.stmts != b.stmts {
				return parse.LineError(p.s.name, b.line, "block %s,%s of %s has %d statements here but %d at line %d",
					profPos(b.start), profPos(b.end), p.cur, b.stmts, last.stmts, last.line)
			}
			last.hit = last.hit || b.hit
		}
		blocks = out
	}
	*r = profRun{file: p.cur, line: p.curLine, n: len(blocks)}
	stmts := slices.Grow(p.stmts[:0], len(blocks))[:len(blocks)]
	words := slices.Grow(p.words[:0], (len(blocks)+63)/64)[:(len(blocks)+63)/64]
	h, total, covered, hits := profSums(blocks, stmts, words)
	p.stmts, p.words = stmts, words
	r.total, r.covered, r.hits = int64(total), int64(covered), hits
	r.hash, r.stmts = h, stmts
	if r.hits > 0 && r.hits < r.n {
		r.bits = slices.Clone(words)
	}
	p.blocks = p.blocks[:0]
	p.unsorted = false
	p.cur = ""
	return nil
}

// profSums returns the hash of blocks, sorted and distinct, their
// statements and those of the covered ones, and how many are covered; it
// writes the blocks' statements to stmts and their covered bits to words
// (bit i%64 of word i/64). The hash is a sum of one hash per block: the
// sum stands for the set, and no block's hash waits for the one before.
func profSums(blocks []profBlock, stmts []uint32, words []uint64) (h, total, covered uint64, hits int) {
	stmts = stmts[:len(blocks)]
	clear(words)
	for i := range blocks {
		b := &blocks[i]
		st, hit := uint64(b.stmts), uint64(0)
		if b.hit {
			hit = 1
		}
		h += profMix(profMix(b.start^14695981039346656037, b.end), st)
		stmts[i] = b.stmts
		total += st
		covered += st & -hit
		words[uint(i)/64] |= hit << (i & 63)
	}
	for _, w := range words {
		hits += bits.OnesCount64(w)
	}
	return h, total, covered, hits
}

func profMix(h, v uint64) uint64 {
	h ^= v
	h *= 1099511628211
	h ^= h >> 29
	return h
}
