package lazyre

import (
	"testing"
)

func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	t.Parallel()
	re := New(`^a+$`)
	first := re()
	if !first.MatchString("aaa") || first.MatchString("ab") {
		t.Fatalf("%v matches wrongly", first)
	}
	if re() != first {
		t.Error("a second call compiled the expression again")
	}
}

func TestNewPanicsOnUseOfABadExpression(t *testing.T) {
	t.Parallel()
	re := New(`(`) // does not panic here: nothing is compiled yet
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic on use")
		}
	}()
	re()
}
