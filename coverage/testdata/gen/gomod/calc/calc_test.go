package calc

import "testing"

func TestAbs(t *testing.T) {
	for _, x := range []int{-2, 3} {
		if Abs(x) < 0 {
			t.Fatal(x)
		}
	}
}

func TestSign(t *testing.T) {
	if Sign(5) != 1 {
		t.Fatal("sign")
	}
}
