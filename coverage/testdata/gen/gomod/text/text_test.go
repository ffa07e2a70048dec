package text

import "testing"

func TestPad(t *testing.T) {
	if Pad("ab", 4) != "ab  " {
		t.Fatal("pad")
	}
}

func TestBar(t *testing.T) {
	if Bar(-3) != "***" {
		t.Fatal("bar")
	}
}
