package nilpanic

import "testing"

func TestSecondOK(t *testing.T) {
	if got := Second(&Node{Next: &Node{Val: 7}}); got != 7 {
		t.Fatalf("got %d want 7", got)
	}
}

func TestSecondNil(t *testing.T) {
	_ = Second(&Node{})
}
