package pushfix

import "github.com/gcloop/gcloop/internal/pathmatch"

// matchSegment is one glob segment's match, as the ignore rules use it.
func matchSegment(p, s string) bool { return pathmatch.MatchSegment(p, s) }
