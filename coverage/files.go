package coverage

import "github.com/gcloop/gcloop/internal/parse"

// MaxFiles is the most distinct source files one coverage report may list.
// Per-file coverage is kept for every file (the totals merge a file's
// records line by line, so no file can be dropped and merged later), so
// this count bounds the memory a report can take (DESIGN §10); a report
// with more files is an error naming the file and line.
const MaxFiles = 250_000

// tooManyFiles is the error for a report past MaxFiles distinct files.
func tooManyFiles(name string, line int) *parse.Error {
	return parse.LineError(name, line, "more than %d distinct source files in one report (the limit that bounds memory)", MaxFiles)
}
