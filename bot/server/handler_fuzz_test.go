package server

import (
	"context"
	"testing"
)

// FuzzHandler: any event name and payload is worked on, ignored or refused
// with an error, never a panic; an installation is forgotten only for an
// installation event.
func FuzzHandler(f *testing.F) {
	f.Add("installation", []byte(`{"action":"deleted","installation":{"id":7}}`))
	f.Add("installation_repositories", []byte(`{"installation":null}`))
	f.Add("issue_comment", []byte(`{"repository":{"full_name":"octo/shop"}}`))
	f.Add("workflow_run", []byte(`{"repository":{"full_name":"evil/x"}}`))
	f.Add("push", []byte(`[]`))
	f.Fuzz(func(t *testing.T, name string, payload []byte) {
		w, fg := &recordingWorker{}, &recordingForgetter{}
		h := &handler{next: w, clients: fg, repository: "octo/shop", log: quiet()}
		_ = h.Handle(context.Background(), "d", name, payload)
		if len(fg.forgot) > 0 && name != "installation" && name != "installation_repositories" {
			t.Fatalf("%s forgot installations %v", name, fg.forgot)
		}
		if len(fg.forgot) > 0 && len(w.calls) > 0 {
			t.Fatal("an installation event reached the delivery handler")
		}
	})
}
