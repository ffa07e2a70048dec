// Package evidence reads critic evidence files — review results, reviewer
// and audit reports, the framework's tasks.csv and discoveries.ndjson, SARIF,
// checkstyle and validation reports — into decide.Evidence. Every reader
// takes an io.Reader and a display name, streams with bounded memory, and
// reports bad input as a one-line *parse.Error naming the file and the
// line or byte offset.
package evidence
