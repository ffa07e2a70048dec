package pushfix

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// base85 is Git's base85 alphabet (base85.c), in value order.
const base85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"

// base85Value maps a byte to its value plus one; 0 for a byte outside the
// alphabet.
var base85Value = func() (t [256]byte) {
	for i := 0; i < len(base85); i++ {
		t[base85[i]] = byte(i + 1)
	}
	return t
}()

// checkBinary inflates every binary fragment of a patch ("GIT binary
// patch", then "literal N" or "delta N" and base85 lines up to a blank
// line), as the patch parser will, before it does — the parser inflates a
// fragment whole, however far it inflates, and only then compares the
// size with the one declared. Here each fragment may declare at most
// maxFile bytes and must inflate to no more than it declares, and all
// fragments together to at most maxTotal: a zlib bomb in a patch costs at
// most those bytes of reading, and no memory. Malformed fragments are left
// to the parser, which names the line.
func checkBinary(data []byte, maxFile, maxTotal int64) error {
	var (
		total    int64
		lineNo   int
		state    int // 0 outside, 1 after the marker or a fragment, 2 in a fragment's data
		declared int64
		header   int // the line of the fragment's header
		raw      []byte
	)
	for rest := data; len(rest) > 0; {
		var line []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			line, rest = rest, nil
		}
		lineNo++
		switch state {
		case 2:
			if string(line) == "\n" {
				n, err := inflated(raw, declared)
				switch {
				case err != nil:
				case n > declared:
					return fmt.Errorf("line %d: a binary fragment declared as %d bytes inflates to more", header, declared)
				}
				if total += n; total > maxTotal {
					return fmt.Errorf("line %d: the binary fragments inflate to more than %d bytes together", header, maxTotal)
				}
				raw, state = raw[:0], 1
				continue
			}
			if raw = appendBase85Line(raw, line); raw == nil {
				state = 0 // malformed: the parser says where
			}
			continue
		case 1:
			if size, ok := binaryHeader(line); ok {
				if size < 0 || size > maxFile {
					return fmt.Errorf("line %d: a binary fragment of %d bytes, over GitHub's %d-byte file limit", lineNo, size, maxFile)
				}
				declared, header, state, raw = size, lineNo, 2, []byte{}
				continue
			}
			state = 0
		}
		if string(line) == "GIT binary patch\n" {
			state = 1
		}
	}
	return nil
}

// binaryHeader reads a fragment's header line, "literal N" or "delta N".
// A negative N is a header too (the parser takes it, and would inflate the
// fragment whole before it compared the sizes); the caller refuses it.
func binaryHeader(line []byte) (int64, bool) {
	kind, size, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(" "))
	if !ok || string(kind) != "literal" && string(kind) != "delta" {
		return 0, false
	}
	n, err := strconv.ParseInt(string(size), 10, 64)
	return n, err == nil
}

// appendBase85Line decodes one data line of a binary fragment (a length
// byte, A–Z for 1–26 and a–z for 27–52, then groups of five base85
// characters) onto dst; nil when the line is malformed.
func appendBase85Line(dst, line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if len(line) < 6 || (len(line)-1)%5 != 0 {
		return nil
	}
	var count int
	switch c := line[0]; {
	case 'A' <= c && c <= 'Z':
		count = int(c-'A') + 1
	case 'a' <= c && c <= 'z':
		count = int(c-'a') + 27
	default:
		return nil
	}
	groups := line[1:]
	if most := len(groups) / 5 * 4; count > most || count < most-3 {
		return nil
	}
	for g := 0; g < len(groups); g += 5 {
		var v uint32 // wraps as Git's decoder does
		for _, c := range groups[g : g+5] {
			d := base85Value[c]
			if d == 0 {
				return nil
			}
			v = v*85 + uint32(d-1)
		}
		for j := 0; j < 4 && count > 0; j++ {
			dst = append(dst, byte(v>>24))
			v <<= 8
			count--
		}
	}
	return dst
}

// inflated is how many bytes the zlib stream z inflates to, counted up to
// limit+1.
func inflated(z []byte, limit int64) (int64, error) {
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(zr, limit+1))
	if err != nil && !errors.Is(err, io.EOF) {
		return n, err
	}
	return n, nil
}
