package ghfake

// Collaborator permission levels.

import (
	"net/http"
	"strings"
)

// legacyPermission maps a role to the permission field GitHub reports.
var legacyPermission = map[string]string{"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}

func (c *call) permission() {
	login := c.params["username"]
	u, known := c.s.users[strings.ToLower(login)]
	if !known {
		writeError(c.w, http.StatusNotFound, "Not Found", docsURL)
		return
	}
	role := c.repo.perms[strings.ToLower(login)]
	if role == "" {
		role = "none"
		if strings.EqualFold(login, c.repo.owner) {
			role = "admin"
		}
	}
	perm, ok := legacyPermission[role]
	if !ok {
		perm = role
	}
	user := c.s.userJSON(u.login)
	user["permissions"] = obj{"admin": role == "admin", "maintain": role == "admin" || role == "maintain",
		"push": perm == "admin" || perm == "write", "triage": perm != "none" && role != "read", "pull": perm != "none"}
	user["role_name"] = role
	c.json(http.StatusOK, obj{"permission": perm, "role_name": role, "user": user})
}
