// Package identity tells which GitHub login gcloop writes as, so that its
// report comments and fix issues can be told from anyone else's
// (DESIGN §4, §12). The action and the bot share it.
package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/gcloop/gcloop/internal/lazyre"
)

// ActionsBot is the login GITHUB_TOKEN writes as.
const ActionsBot = "github-actions[bot]"

// usersAPI is the part of go-github's UsersService the identity needs.
type usersAPI interface {
	Get(ctx context.Context, user string) (*github.User, *github.Response, error)
}

// loginRE is a GitHub login, a bot's with its "[bot]" suffix.
var loginRE = lazyre.New(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$`)

// ValidLogin reports whether s can be a GitHub login ("octocat",
// "my-app[bot]").
func ValidLogin(s string) bool { return loginRE().MatchString(s) }

// Kind is the kind of a token, told by its prefix.
type Kind int

// Token kinds.
const (
	// Installation is a GitHub App installation token (ghs_): GITHUB_TOKEN
	// or an App's own; GitHub cannot say whose, so the bot-login input
	// names an App.
	Installation Kind = iota
	// User is a token that acts as a user: classic (ghp_) and fine-grained
	// (github_pat_) personal tokens, OAuth (gho_) and user-to-server
	// (ghu_) tokens; GET /user names the user.
	User
	// Unknown is any other token (older formats).
	Unknown
)

// KindOf tells a token's kind by its prefix.
func KindOf(token string) Kind {
	switch {
	case strings.HasPrefix(token, "ghs_"):
		return Installation
	case strings.HasPrefix(token, "ghp_"), strings.HasPrefix(token, "github_pat_"),
		strings.HasPrefix(token, "gho_"), strings.HasPrefix(token, "ghu_"):
		return User
	}
	return Unknown
}

// Resolve returns the login the token writes as, with at most one request:
//
//   - botLogin, when given (the bot-login input, for an App installation
//     token handed to the action), is the identity — no request;
//   - an installation token (ghs_) without botLogin is GITHUB_TOKEN:
//     github-actions[bot] — no request;
//   - a user token and a token of unknown kind: GET /user; an unknown
//     token that GitHub refuses there (403, as for any installation
//     token) is taken as GITHUB_TOKEN.
//
// A dry run has no token and must not call it.
func Resolve(ctx context.Context, users usersAPI, token, botLogin string) (string, error) {
	if botLogin != "" {
		if !ValidLogin(botLogin) {
			return "", fmt.Errorf("input bot-login %q: want a GitHub login such as my-app[bot]", botLogin)
		}
		return botLogin, nil
	}
	kind := KindOf(token)
	if kind == Installation {
		return ActionsBot, nil
	}
	if users == nil {
		return "", errors.New("identity: a user token needs the API (GET /user) to name its user")
	}
	u, _, err := users.Get(ctx, "")
	if err != nil {
		var er *github.ErrorResponse
		if kind == Unknown && errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == 403 {
			return ActionsBot, nil
		}
		return "", fmt.Errorf("identity: GET /user for the token's login: %w", ghclient.Explained(err))
	}
	if !ValidLogin(u.GetLogin()) {
		return "", fmt.Errorf("identity: GET /user answered login %q, want a GitHub login", u.GetLogin())
	}
	return u.GetLogin(), nil
}
