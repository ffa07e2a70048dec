package parse

import (
	"errors"
	"io"
	"testing"
)

func TestErrorSaysWhichFileWhereAndWhat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"at a line", LineError("review.json", 3, "want %s", "a score"), "review.json:3: want a score"},
		{"at a byte", OffsetError("cover.out", 17, "bad count"), "cover.out: byte 17: bad count"},
		{"at the start", OffsetError("cover.out", 0, "empty file"), "cover.out: byte 0: empty file"},
		{"nowhere in particular", &Error{File: "tasks.csv", Offset: -1, Msg: "no AUDIT row"}, "tasks.csv: no AUDIT row"},
		{"a read error with a message", &Error{File: "a.xml", Line: 2, Msg: "read failed", Err: io.ErrUnexpectedEOF}, "a.xml:2: read failed: unexpected EOF"},
		{"a read error alone", &Error{File: "a.xml", Offset: -1, Err: io.ErrUnexpectedEOF}, "a.xml: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestErrorUnwrapsItsCause(t *testing.T) {
	t.Parallel()
	err := error(&Error{File: "a.xml", Offset: -1, Msg: "read failed", Err: io.ErrUnexpectedEOF})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("%v does not wrap its cause", err)
	}
	var pe *Error
	if !errors.As(err, &pe) || pe.File != "a.xml" {
		t.Errorf("errors.As = %v", pe)
	}
}
