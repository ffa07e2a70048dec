package ghfake

// The fake's internal state: repositories and what they hold.

import (
	"strings"
	"time"
)

type userState struct {
	login string
	id    int64
	bot   bool
}

type repoState struct {
	owner, name   string
	id            int64
	defaultBranch string
	perms         map[string]string // lower-case login → level
	customRoles   map[string]string // custom role → the level it inherits (SetCustomRole)
	issues        map[int]*issueState
	comments      map[int64]*commentState
	labels        []*labelState
	pulls         map[int]*pullState
	runs          map[int64]*runState
	files         map[string]map[string][]byte // ref → path → content
	objects       objectStore
	refs          map[string]string // "heads/main" → sha
	workflows     map[string]int64  // file name → workflow id
	dispatches    []Dispatch
	reruns        []int64
	checkRuns     map[int64]*checkRunState
	statuses      []*statusState
	protected     map[string]bool // branch name → protected (Protect)
	private       bool            // seen only by its collaborators (SetPrivate)
}

func (r *repoState) fullName() string { return r.owner + "/" + r.name }

type issueState struct {
	id                int64
	number            int
	title, body       string
	state, reason     string
	author            string
	labels            []string
	pull              bool
	created, updated  time.Time
	closed            time.Time
	comments          int
	locked            bool
	closedBy          string
	authorAssociation string
}

type commentState struct {
	id               int64
	issue            int
	author           string
	body             string
	created, updated time.Time
	reactions        []*reactionState
}

type reactionState struct {
	id      int64
	user    string
	content string
	created time.Time
}

type labelState struct {
	id                 int64
	name, color, descr string
}

type pullState struct {
	spec PullSpec
	id   int64
}

type runState struct {
	spec      RunSpec
	attempt   int
	created   time.Time
	artifacts []int64
}

type artifactState struct {
	id      int64
	repo    string // lower-case full name
	runID   int64
	name    string
	zip     []byte
	token   string
	created time.Time
	expired bool
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

// user returns (creating if needed) the user with login. Logins ending in
// "[bot]" are bots. Callers hold s.mu.
func (s *Server) user(login string) *userState {
	k := strings.ToLower(login)
	if u, ok := s.users[k]; ok {
		return u
	}
	u := &userState{login: login, id: s.id(), bot: strings.HasSuffix(login, "[bot]")}
	s.users[k] = u
	return u
}

// mustRepo returns the repository or fails the test. Callers hold s.mu.
func (s *Server) mustRepo(owner, name string) *repoState {
	s.t.Helper()
	r, ok := s.repos[strings.ToLower(owner+"/"+name)]
	if !ok {
		s.t.Fatalf("ghfake: repository %s/%s not added (call AddRepo first)", owner, name)
	}
	return r
}

func appendUnique(list []string, v string) []string {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return list
		}
	}
	return append(list, v)
}
