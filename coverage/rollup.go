package coverage

import (
	"cmp"
	"container/heap"
	"path"
	"slices"
	"strings"

	"github.com/gcloop/gcloop/decide"
)

// Bounds of the default `coverage report` listing (DESIGN §11): the report
// holds the totals, the worst files and a roll-up by directory, never one
// record per file of a monorepo unless all files are asked for.
const (
	// WorstFiles is how many files the default listing keeps: those with
	// the lowest coverage.
	WorstFiles = 50
	// MaxDirectories caps the roll-up by directory; files of directories
	// past it are added up in one entry named OtherDirectories.
	MaxDirectories = 1000
	// OtherDirectories names the roll-up entry past MaxDirectories.
	OtherDirectories = "(other directories)"
)

// ReportDir is the line coverage of the files of one directory.
type ReportDir struct {
	Path    string  `json:"path"`
	Files   int     `json:"files"`
	Covered int64   `json:"covered"`
	Total   int64   `json:"total"`
	Percent float64 `json:"percent"`
}

// worseFile orders files for the listing: lowest percentage first, then
// most uncovered lines, then by path.
func worseFile(a, b ReportFile) int {
	return cmp.Or(cmp.Compare(a.Percent, b.Percent), cmp.Compare(b.Total-b.Covered, a.Total-a.Covered), cmp.Compare(a.Path, b.Path))
}

// worstHeap keeps the n worst files; its root is the best of them, the
// first to go when a worse file comes.
type worstHeap []ReportFile

func (h worstHeap) Len() int           { return len(h) }
func (h worstHeap) Less(i, j int) bool { return worseFile(h[i], h[j]) > 0 }
func (h worstHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstHeap) Push(x any)        { *h = append(*h, x.(ReportFile)) }
func (h *worstHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// RollUp folds per-file coverage, one file at a time, into what a report
// keeps: the file count, the WorstFiles files of lowest coverage and the
// totals by directory (at most MaxDirectories, then OtherDirectories). It
// holds no file it is not keeping, so a reader can stream files into it.
type RollUp struct {
	n     int
	files int
	worst worstHeap
	dirs  map[string]*ReportDir
	other *ReportDir

	// The directory of the file added last, by its path up to the last
	// slash.
	lastPrefix string
	lastDir    *ReportDir
}

// NewRollUp returns an empty roll-up keeping the WorstFiles worst files.
func NewRollUp() *RollUp { return newRollUp(WorstFiles) }

func newRollUp(n int) *RollUp {
	return &RollUp{n: n, worst: make(worstHeap, 0, n), dirs: map[string]*ReportDir{}}
}

// Reset empties the roll-up, for a reader that starts over.
func (r *RollUp) Reset() { *r = *newRollUp(r.n) }

// Add folds in one file; each file must be added once.
func (r *RollUp) Add(f decide.FileCoverage) {
	r.files++
	if r.n > 0 {
		rf := reportFile(f)
		switch {
		case len(r.worst) < r.n:
			heap.Push(&r.worst, rf)
		case worseFile(rf, r.worst[0]) < 0:
			r.worst[0] = rf
			heap.Fix(&r.worst, 0)
		}
	}
	// path.Dir depends only on the path up to its last slash, and files
	// of one directory tend to come together.
	prefix := f.Path[:strings.LastIndexByte(f.Path, '/')+1]
	d := r.lastDir
	if d == nil || prefix != r.lastPrefix {
		d = r.dir(path.Dir(f.Path))
		r.lastPrefix, r.lastDir = prefix, d
	}
	d.Files++
	d.Covered += f.Covered
	d.Total += f.Total
}

// dir returns the entry of directory dir, made when new: OtherDirectories
// once there are MaxDirectories.
func (r *RollUp) dir(dir string) *ReportDir {
	if d := r.dirs[dir]; d != nil {
		return d
	}
	if len(r.dirs) < MaxDirectories {
		d := &ReportDir{Path: strings.Clone(dir)} // not the whole path
		r.dirs[d.Path] = d
		return d
	}
	if r.other == nil {
		r.other = &ReportDir{Path: OtherDirectories}
	}
	return r.other
}

// result returns the worst files and the directories, each sorted by path
// (OtherDirectories last).
func (r *RollUp) result() ([]ReportFile, []ReportDir) {
	out := make([]ReportDir, 0, len(r.dirs)+1)
	for _, d := range r.dirs {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b ReportDir) int { return cmp.Compare(a.Path, b.Path) })
	if r.other != nil {
		out = append(out, *r.other)
	}
	for i := range out {
		if out[i].Total > 0 {
			out[i].Percent = round2(100 * float64(out[i].Covered) / float64(out[i].Total))
		}
	}
	list := slices.Clone([]ReportFile(r.worst))
	slices.SortFunc(list, func(a, b ReportFile) int { return cmp.Compare(a.Path, b.Path) })
	return list, out
}

// rollUp rolls up a list of files, keeping the n worst.
func rollUp(files []decide.FileCoverage, n int) ([]ReportFile, []ReportDir) {
	r := newRollUp(n)
	for _, f := range files {
		r.Add(f)
	}
	return r.result()
}

func reportFile(f decide.FileCoverage) ReportFile {
	return ReportFile{Path: f.Path, Covered: f.Covered, Total: f.Total, Percent: round2(f.Percent())}
}
