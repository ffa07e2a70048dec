package feed

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Limits of GET /api/events.
const (
	DefaultLimit = 100  // events returned when ?limit= is absent
	MaxLimit     = 1000 // the most events one request returns
)

// query is the parsed query string of /ws and /api/*.
type query struct {
	since int64  // -1 when absent
	limit int    // DefaultLimit when absent
	repo  string // "" when absent
	// ndjson is ?format=ndjson: /api/events streams the log as JSON lines.
	ndjson bool
}

// parseQuery reads since, limit, format and repo; an error names the parameter and
// what it expected.
func parseQuery(v url.Values) (query, error) {
	q := query{since: -1, limit: DefaultLimit}
	if s, ok := v["since"]; ok {
		if len(s) != 1 {
			return q, fmt.Errorf("query parameter since: given %d times, want once", len(s))
		}
		n, err := strconv.ParseInt(s[0], 10, 64)
		if err != nil || n < 0 {
			return q, fmt.Errorf("query parameter since=%q: want an event id, an integer ≥ 0", clip(s[0]))
		}
		q.since = n
	}
	if s, ok := v["limit"]; ok {
		if len(s) != 1 {
			return q, fmt.Errorf("query parameter limit: given %d times, want once", len(s))
		}
		n, err := strconv.Atoi(s[0])
		if err != nil || n < 1 {
			return q, fmt.Errorf("query parameter limit=%q: want an integer from 1 to %d", clip(s[0]), MaxLimit)
		}
		q.limit = min(n, MaxLimit)
	}
	if s, ok := v["format"]; ok {
		if len(s) != 1 || s[0] != "json" && s[0] != "ndjson" {
			return q, fmt.Errorf("query parameter format=%q: want json or ndjson", clip(strings.Join(s, ",")))
		}
		q.ndjson = s[0] == "ndjson"
	}
	if s, ok := v["repo"]; ok {
		if len(s) != 1 || !validRepo(s[0]) {
			return q, fmt.Errorf("query parameter repo=%q: want owner/name", clip(strings.Join(s, ",")))
		}
		q.repo = s[0]
	}
	return q, nil
}

// validRepo reports whether s looks like owner/name: two non-empty parts of
// letters, digits, '-', '_' and '.', at most 100 characters each.
func validRepo(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	return ok && validPart(owner) && validPart(name)
}

func validPart(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return true
}

// clip shortens a hostile value for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
