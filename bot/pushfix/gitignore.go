package pushfix

import "github.com/gcloop/gcloop/internal/pathmatch"

// Gitignore decides, like Git, whether an untracked path is ignored by the
// .gitignore files of a repository (and its .git/info/exclude); see
// pathmatch.Gitignore for the rules supported. The zero value ignores
// nothing.
type Gitignore = pathmatch.Gitignore

// cleanRel cleans a slash-separated repository-relative path: no leading
// "./" or "/", no trailing "/", no "." or empty segments.
func cleanRel(name string) string { return pathmatch.Clean(name) }
