package command

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/gcloop/gcloop/bot/ghclient"
	"github.com/google/go-github/v62/github"
)

// permissionAPI is the part of go-github's RepositoriesService that
// Authorize needs.
type permissionAPI interface {
	GetPermissionLevel(ctx context.Context, owner, repo, user string) (*github.RepositoryPermissionLevel, *github.Response, error)
}

// Repository roles from least to most; a user's level is one of them.
var levels = []string{"none", "read", "triage", "write", "maintain", "admin"}

func rank(level string) int {
	for i, l := range levels {
		if l == level {
			return i
		}
	}
	return -1
}

// bands maps the legacy `permission` field to the roles it stands for:
// GitHub reports maintain as write and triage as read.
var bands = map[string][]string{
	"admin": {"admin"},
	"write": {"write", "maintain"},
	"read":  {"read", "triage"},
	"none":  {"none"},
}

// Authorize checks that user holds at least the role min (write, maintain
// or admin) on owner/repo, through the collaborator-permission API
// (GET /repos/{owner}/{repo}/collaborators/{user}/permission), never
// author_association, which shows private organization members as
// CONTRIBUTOR or NONE. It returns the user's level (none, read, triage,
// write, maintain or admin).
//
// The legacy `permission` field (admin, write, read, none) sets the band;
// the collaborator's `role_name`, or else its `permissions` flags, refine
// it within that band, which tells maintain from write. A role outside
// the band (or a custom role) never raises the level above what
// `permission` grants. A 404 (not a collaborator) is level none, not an
// error; any other failure is an error and authorizes nothing.
func Authorize(ctx context.Context, api permissionAPI, owner, repo, user, min string) (level string, ok bool, err error) {
	if min != "write" && min != "maintain" && min != "admin" {
		return "", false, fmt.Errorf("command permission %q: want write, maintain or admin", min)
	}
	if user == "" {
		return "", false, errors.New("command permission: no user to check")
	}
	p, _, err := api.GetPermissionLevel(ctx, owner, repo, user)
	if err != nil {
		var er *github.ErrorResponse
		if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
			return "none", false, nil
		}
		return "", false, fmt.Errorf("permission of %s on %s/%s: %w", user, owner, repo, ghclient.Explained(err))
	}
	level = levelOf(p)
	return level, rank(level) >= rank(min), nil
}

// levelOf reads a user's level from the permission response.
func levelOf(p *github.RepositoryPermissionLevel) string {
	if p == nil {
		return "none"
	}
	band, known := bands[p.GetPermission()]
	if !known {
		return "none"
	}
	role := ""
	if u := p.GetUser(); u != nil {
		role = u.GetRoleName()
		if rank(role) < 0 {
			role = flagsLevel(u.Permissions)
		}
	}
	for _, l := range band {
		if l == role {
			return role
		}
	}
	return band[0]
}

// flagsLevel reads the highest role from a collaborator's permission
// flags (pull, triage, push, maintain, admin); "" when there are none.
func flagsLevel(flags map[string]bool) string {
	for _, f := range []struct{ flag, level string }{
		{"admin", "admin"}, {"maintain", "maintain"}, {"push", "write"}, {"triage", "triage"}, {"pull", "read"},
	} {
		if flags[f.flag] {
			return f.level
		}
	}
	return ""
}

// RoleClient reads a collaborator's permission like go-github's
// RepositoriesService.GetPermissionLevel, but also decodes the response's
// top-level `role_name`, which v62's RepositoryPermissionLevel lacks, and
// puts it in User.RoleName so that Authorize tells maintain from write
// even when the nested user object carries no role.
type RoleClient struct{ Client *github.Client }

// GetPermissionLevel calls GET /repos/{owner}/{repo}/collaborators/{user}/permission.
func (c RoleClient) GetPermissionLevel(ctx context.Context, owner, repo, user string) (*github.RepositoryPermissionLevel, *github.Response, error) {
	u := fmt.Sprintf("repos/%v/%v/collaborators/%v/permission", url.PathEscape(owner), url.PathEscape(repo), url.PathEscape(user))
	req, err := c.Client.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	var body struct {
		github.RepositoryPermissionLevel
		RoleName *string `json:"role_name,omitempty"`
	}
	resp, err := c.Client.Do(ctx, req, &body)
	if err != nil {
		return nil, resp, err
	}
	p := body.RepositoryPermissionLevel
	if body.RoleName != nil && *body.RoleName != "" {
		if p.User == nil {
			p.User = &github.User{}
		}
		p.User.RoleName = body.RoleName
	}
	return &p, resp, nil
}
