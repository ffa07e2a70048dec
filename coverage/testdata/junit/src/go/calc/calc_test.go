package calc

import "testing"

func TestAdd(t *testing.T) {
	if got, want := Add(2, 3), 5; got != want {
		t.Errorf("Add(2, 3) = %d, want %d", got, want)
	}
}

func TestSub(t *testing.T) {
	if got, want := Sub(5, 3), 2; got != want {
		t.Errorf("Sub(5, 3): got %d want %d", got, want)
	}
}

func TestTable(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b int
		want int
	}{{"zero", 0, 0, 0}, {"negative", -1, -2, -3}} {
		t.Run(c.name, func(t *testing.T) {
			if got := Add(c.a, c.b); got != c.want {
				t.Errorf("got %d want %d", got, c.want)
			}
		})
	}
}

func TestSkipped(t *testing.T) {
	t.Skip("not supported on this platform")
}
