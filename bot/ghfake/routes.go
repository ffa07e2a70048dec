package ghfake

// Routing: operation ids of the REST description to handlers.

import (
	"net/http"
	"strings"
)

// dispatch routes a validated call to its handler.
func (s *Server) dispatch(c *call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.op == "rate-limit/get" {
		c.rateLimit()
		return
	}
	if strings.HasPrefix(c.op, "apps/") || strings.HasPrefix(c.login, jwtLogin) {
		c.appCall()
		return
	}
	if c.op == "users/get-authenticated" {
		c.authenticatedUser()
		return
	}
	r, ok := s.repos[strings.ToLower(c.params["owner"]+"/"+c.params["repo"])]
	if !ok || !s.sees(r, c.login) {
		c.notFound()
		return
	}
	c.repo = r
	h, ok := handlers[c.op]
	if !ok {
		writeError(c.w, http.StatusNotImplemented, "ghfake: operation "+c.op+" not implemented", docsURL)
		return
	}
	h(c)
}

var handlers map[string]func(*call)

func init() {
	handlers = map[string]func(*call){
		"issues/list-comments":                            (*call).listComments,
		"issues/create-comment":                           (*call).createComment,
		"issues/get-comment":                              (*call).getComment,
		"issues/update-comment":                           (*call).updateComment,
		"issues/delete-comment":                           (*call).deleteComment,
		"issues/list-for-repo":                            (*call).listIssues,
		"issues/create":                                   (*call).createIssue,
		"issues/get":                                      (*call).getIssue,
		"issues/update":                                   (*call).updateIssue,
		"issues/list-labels-for-repo":                     (*call).listLabels,
		"issues/create-label":                             (*call).createLabel,
		"issues/get-label":                                (*call).getLabel,
		"issues/add-labels":                               (*call).addLabels,
		"reactions/list-for-issue-comment":                (*call).listReactions,
		"reactions/create-for-issue-comment":              (*call).createReaction,
		"repos/get-collaborator-permission-level":         (*call).permission,
		"pulls/list":                                      (*call).listPulls,
		"pulls/get":                                       (*call).getPull,
		"repos/list-pull-requests-associated-with-commit": (*call).commitPulls,
		"actions/list-workflow-run-artifacts":             (*call).listArtifacts,
		"actions/download-artifact":                       (*call).downloadArtifact,
		"actions/get-workflow-run":                        (*call).getRun,
		"actions/create-workflow-dispatch":                (*call).dispatchWorkflow,
		"actions/re-run-workflow":                         (*call).rerun,
		"git/get-ref":                                     (*call).getRef,
		"git/update-ref":                                  (*call).updateRef,
		"git/create-blob":                                 (*call).createBlob,
		"git/create-tree":                                 (*call).createTree,
		"git/get-tree":                                    (*call).getTree,
		"git/create-commit":                               (*call).createCommit,
		"git/get-commit":                                  (*call).getCommit,
		"repos/get-content":                               (*call).getContent,
		"repos/get":                                       (*call).getRepo,
		"repos/get-branch":                                (*call).getBranch,
		"checks/create":                                   (*call).createCheckRun,
		"checks/update":                                   (*call).updateCheckRun,
		"checks/get":                                      (*call).getCheckRun,
		"checks/list-annotations":                         (*call).listCheckRunAnnotations,
		"checks/list-for-ref":                             (*call).listCheckRunsForRef,
		"repos/create-commit-status":                      (*call).createStatus,
		"repos/get-combined-status-for-ref":               (*call).combinedStatus,
	}
}
