package ghfake

// The token's account: rate limit and authenticated user.

import (
	"net/http"
	"time"
)

func (c *call) rateLimit() {
	used := c.s.used[c.login]
	remaining := rateLimit - used
	if remaining < 0 {
		remaining = 0
	}
	reset := c.s.start.Add(time.Hour).Unix()
	core := obj{"limit": rateLimit, "used": used, "remaining": remaining, "reset": reset}
	res := obj{"core": core}
	for name, limit := range map[string]int{"search": 30, "graphql": 5000, "integration_manifest": 5000, "code_search": 10} {
		res[name] = obj{"limit": limit, "used": 0, "remaining": limit, "reset": reset}
	}
	c.json(http.StatusOK, obj{"resources": res, "rate": core})
}

// authenticatedUser answers GET /user: the token's user as a public
// profile; a bot's token (GITHUB_TOKEN, an App installation) gets 403 as
// on GitHub, whose App identity comes from GET /app instead.
func (c *call) authenticatedUser() {
	if c.s.user(c.login).bot {
		writeError(c.w, http.StatusForbidden, "Resource not accessible by integration",
			"https://docs.github.com/rest/users/users#get-the-authenticated-user")
		return
	}
	u := c.s.userJSON(c.login)
	u["user_view_type"] = "public"
	for _, k := range []string{"name", "company", "blog", "location", "email", "hireable", "bio"} {
		u[k] = nil
	}
	u["blog"] = ""
	u["public_repos"], u["public_gists"], u["followers"], u["following"] = 0, 0, 0, 0
	u["created_at"], u["updated_at"] = ts(c.s.now()), ts(c.s.now())
	c.json(http.StatusOK, u)
}
