package command

import (
	"strings"
	"testing"
)

func TestWhoWordsTheConfiguredPermission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		who  Who
		want string
	}{
		{"nothing configured is write", nil,
			"users with **write**, maintain or admin permission on the repository"},
		{"one loop's maintain", Who{{Min: "maintain"}},
			"users with **maintain** or admin permission on the repository"},
		{"admin alone", Who{{Min: "admin"}},
			"users with **admin** permission on the repository"},
		{"a role below write counts as write", Who{{Min: "read"}},
			"users with **write**, maintain or admin permission on the repository"},
		{"loops of one role name none", Who{{LoopID: "review", Min: "write"}, {LoopID: "cov", Min: "write"}, {Min: "write"}},
			"users with **write**, maintain or admin permission on the repository"},
		{"loops of different roles are named", Who{{LoopID: "cov", Min: "admin"}, {LoopID: "review", Min: "write"}, {Min: "write"}},
			"users with **admin** permission for `cov`; users with **write**, maintain or admin permission for `review`, the other loops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.who.String()
			if !strings.HasPrefix(got, "**Who may run them:** "+tt.want+" (") {
				t.Errorf("Who.String() = %q, want it to start with %q", got, tt.want)
			}
			if !strings.Contains(HelpText(tt.who), got) {
				t.Errorf("the help does not hold %q", got)
			}
		})
	}
}

func TestAnswersFindsOnlyItsOwnMarker(t *testing.T) {
	t.Parallel()
	reply := Marked("@alice here are the commands", 42)
	tests := []struct {
		name string
		body string
		id   int64
		want bool
	}{
		{"the marked reply", reply, 42, true},
		{"a trailing newline", reply + "\n", 42, true},
		{"another comment's reply", reply, 4, false},
		{"an id that only starts the same", Marked("x", 421), 42, false},
		{"the marker quoted mid-body", "see " + reply + "\nmore", 42, false},
		{"a body that is only the marker", "<!-- gcloop:reply 42 -->", 42, true},
		{"no marker", "plain", 42, false},
		{"empty", "", 42, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Answers(tt.body, tt.id); got != tt.want {
				t.Errorf("Answers(%q, %d) = %t, want %t", tt.body, tt.id, got, tt.want)
			}
		})
	}
}
