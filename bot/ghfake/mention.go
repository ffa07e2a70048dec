package ghfake

import "strings"

// Pingable reports whether s holds an '@' that no zero-width space
// follows: a mention GitHub would notify someone of.
func Pingable(s string) bool {
	for i := strings.Index(s, "@"); i >= 0; {
		if !strings.HasPrefix(s[i+1:], "\u200b") {
			return true
		}
		j := strings.Index(s[i+1:], "@")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}
