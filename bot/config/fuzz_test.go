package config

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

// FuzzResolve parses an arbitrary file and resolves it with arbitrary
// action inputs. An error of Parse is a *parse.Error naming the file
// (and a line, for any problem but the file's size), on one line. A parsed
// file resolves without error for every loop kind and for every section
// with no inputs; with inputs, Resolve either fails on one line naming an
// input, or the inputs it was given win over the file.
func FuzzResolve(f *testing.F) {
	seed, err := os.ReadFile("testdata/gcloop.yml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed), uint8(0), 3, "L2", "next.yml", "maintain", 1, "a,b")
	f.Add(string(seed), uint8(0xff), 3, "L2", ".github/workflows/next.yml", "maintain", 1, "a,b")
	f.Add("review:\n  max_rounds: 4\n  labels: [x]\n", uint8(0x1f), 0, "", "", "write", 21, "")
	f.Add("cov:\n  loop: coverage\n  layers: {L2: 50}\n", uint8(0x02), 5, "l3", "", "", 0, "")
	f.Add("a: *x\n", uint8(0), 0, "", "", "", 0, "")
	f.Add("review:\n  max_rounds: 3\n review: x\n", uint8(0), 0, "", "", "", 0, "")
	f.Fuzz(func(t *testing.T, in string, mask uint8, maxRounds int, layer, dispatch, permission string, maxRetries int, labels string) {
		const name = ".github/gcloop.yml"
		file, err := Parse(name, strings.NewReader(in))
		if err != nil {
			var pe *parse.Error
			if !errors.As(err, &pe) || pe.File != name || !strings.HasPrefix(err.Error(), name+":") {
				t.Fatalf("error %T does not name the file: %v", err, err)
			}
			if pe.Line < 1 && !strings.Contains(pe.Msg, "larger than") {
				t.Fatalf("error names no line: %v", err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		for _, l := range decide.Loops {
			if _, err := Resolve(l, "", file, Overrides{}); err != nil {
				t.Fatalf("Resolve(%s) with no inputs: %v", l, err)
			}
		}

		var in2 Overrides
		given := func(bit int) bool { return mask&(1<<bit) != 0 }
		if given(0) {
			in2.MaxRounds = &maxRounds
		}
		if given(1) {
			in2.Layer = &layer
		}
		if given(2) {
			in2.Dispatch = &dispatch
		}
		if given(3) {
			in2.Permission = &permission
		}
		if given(4) {
			in2.MaxRetries = &maxRetries
		}
		if given(5) {
			in2.Labels = []string{}
			if labels != "" {
				in2.Labels = strings.Split(labels, ",")
			}
		}
		for id, sec := range file.Loops {
			plain, err := Resolve(sec.Loop, id, file, Overrides{})
			if err != nil {
				t.Fatalf("Resolve(%s, %s) with no inputs: %v", sec.Loop, id, err)
			}
			if sec.MaxRounds != nil && plain.Config.MaxRounds != *sec.MaxRounds {
				t.Fatalf("max_rounds %d, the file says %d", plain.Config.MaxRounds, *sec.MaxRounds)
			}
			got, err := Resolve(sec.Loop, id, file, in2)
			if err != nil {
				if strings.ContainsAny(err.Error(), "\r\n") || !strings.Contains(err.Error(), "input") {
					t.Fatalf("error is not one line naming an input: %q", err)
				}
				continue
			}
			if in2.MaxRounds != nil && got.Config.MaxRounds != maxRounds {
				t.Fatalf("max_rounds %d, the input says %d", got.Config.MaxRounds, maxRounds)
			}
			if in2.Permission != nil && got.Permission != permission {
				t.Fatalf("permission %q, the input says %q", got.Permission, permission)
			}
			if in2.MaxRetries != nil && got.MaxRetries != maxRetries {
				t.Fatalf("max_retries %d, the input says %d", got.MaxRetries, maxRetries)
			}
			if in2.Dispatch != nil && dispatch == "" && got.Dispatch != "" {
				t.Fatalf("dispatch %q, the input turned it off", got.Dispatch)
			}
			if in2.Labels != nil {
				if diff := cmp.Diff(in2.Labels, got.Labels); diff != "" {
					t.Fatalf("labels (-input +got):\n%s", diff)
				}
			}
		}
	})
}
