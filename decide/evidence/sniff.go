// The sniffing rules of the critic formats, for the evidence registry
// (bot/evidence), which owns their order and the dispatch to the readers.
// Each rule knows only its own format and lives beside its reader, whose
// helpers it uses.

package evidence

// IsSARIF reports whether the first bytes of a file are a SARIF log.
func IsSARIF(head []byte) bool { return isSARIF(head) }

// IsValidationReport reports whether the first bytes of a file are a
// validation-report.json.
func IsValidationReport(head []byte) bool { return isValidationReport(head) }

// IsReviewJSON reports whether the first bytes of a file are a review
// result (review-results.json).
func IsReviewJSON(head []byte) bool { return isReviewJSON(head) }

// IsDiscoveries reports whether the first bytes of a file are a
// discoveries.ndjson log.
func IsDiscoveries(head []byte) bool { return isDiscoveries(head) }

// IsCheckstyle reports whether the first bytes of a file are a checkstyle
// XML report.
func IsCheckstyle(head []byte) bool { return isCheckstyle(head) }

// IsTasksCSV reports whether the first bytes of a file are a tasks.csv
// with a review, critique or audit column.
func IsTasksCSV(head []byte) bool { return isTasksCSV(head) }

// IsAuditMarkdown reports whether the first bytes of a file are an audit
// report in markdown.
func IsAuditMarkdown(head []byte) bool { return isAuditMarkdown(head) }

// IsReviewMarkdown reports whether the first bytes of a file are a
// reviewer's markdown report (and not an audit report).
func IsReviewMarkdown(head []byte) bool { return isReviewMarkdown(head) }
