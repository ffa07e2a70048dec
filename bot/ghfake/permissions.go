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
	base := role
	if b, ok := c.repo.customRoles[role]; ok {
		base = b
	}
	perm, ok := legacyPermission[base]
	if !ok {
		perm = base
	}
	user := c.s.userJSON(u.login)
	user["permissions"] = obj{"admin": base == "admin", "maintain": base == "admin" || base == "maintain",
		"push": perm == "admin" || perm == "write", "triage": perm != "none" && base != "read", "pull": perm != "none"}
	user["role_name"] = role
	c.json(http.StatusOK, obj{"permission": perm, "role_name": role, "user": user})
}

// SetCustomRole gives user a custom repository role named role that
// inherits base (read, triage, write or maintain), as an organization
// defines one: GitHub reports base's permission and flags under the
// role's name.
func (s *Server) SetCustomRole(owner, repo, user, role, base string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := legacyPermission[base]; !ok || base == "admin" || base == "none" {
		s.t.Fatalf("ghfake: custom role %q inherits %q, want read, triage, write or maintain", role, base)
	}
	r := s.mustRepo(owner, repo)
	s.user(user)
	if r.customRoles == nil {
		r.customRoles = map[string]string{}
	}
	r.customRoles[role] = base
	r.perms[strings.ToLower(user)] = role
}
