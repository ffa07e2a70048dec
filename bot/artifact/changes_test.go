package artifact

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/bot/pushfix"
	"github.com/gcloop/gcloop/decide"
)

const (
	junitAfter  = `<testsuites><testsuite name="cart" tests="2"><testcase name="TestA"/><testcase name="TestB"/></testsuite></testsuites>`
	junitBefore = `<testsuites><testsuite name="cart" tests="1"><testcase name="TestA"/></testsuite></testsuites>`
	newTest     = "diff --git a/b_test.go b/b_test.go\nnew file mode 100644\n--- /dev/null\n+++ b/b_test.go\n@@ -0,0 +1 @@\n+package cart\n"
)

func TestEvidenceKeepsThePatchAndTheBaselineApart(t *testing.T) {
	t.Parallel()
	s, run := artifactWorld(t)
	s.AddArtifact("o", "r", run, "coverage", ghfake.Zip(t, map[string][]byte{
		"junit.xml":            []byte(junitAfter),
		"gcloop-changes.patch": []byte(newTest),
		"gcloop-baseline.xml":  []byte(junitBefore),
	}))
	c := s.Client("tok")
	got, err := Evidence(context.Background(), c.Actions, nil, "o", "r", run, []string{"coverage"}, decide.Coverage, Limits{Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Pieces) != 1 || got.Pieces[0].Name != "coverage/junit.xml" || got.Pieces[0].Evidence.Tests.Passed != 2 {
		t.Errorf("pieces %+v: want only the junit after the change as evidence", got.Pieces)
	}
	if got.PatchErr != nil || got.Patch == nil || len(got.Patch.Files) != 1 || got.Patch.Name != "coverage/gcloop-changes.patch" {
		t.Errorf("patch %+v, %v: want the one file of coverage/gcloop-changes.patch", got.Patch, got.PatchErr)
	}
	if got.BaselineErr != nil || got.Baseline == nil || got.Baseline.Passed != 1 {
		t.Errorf("baseline %+v, %v: want the one test before the change", got.Baseline, got.BaselineErr)
	}
	if want := int64(len(junitAfter) + len(newTest) + len(junitBefore)); got.Unpacked != want {
		t.Errorf("unpacked %d bytes, want %d: the patch and the baseline count against the budget", got.Unpacked, want)
	}
}

func TestEvidenceSaysWhyThePatchOrBaselineCannotBeRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		files      map[string]map[string][]byte
		patch      string // what PatchErr says; "" = no error
		baseline   string
		overBudget bool
	}{
		{"malformed patch", map[string]map[string][]byte{"a": {"gcloop-changes.patch": []byte("diff --git a/x_test.go b/x_test.go\n--- a/x_test.go\n+++ b/x_test.go\n@@ -1,4 +1 @@\n-x\n")}},
			"a/gcloop-changes.patch: ", "", false},
		{"two patches", map[string]map[string][]byte{"a": {"gcloop-changes.patch": []byte(newTest)}, "b": {"sub/gcloop-changes.patch": []byte(newTest)}},
			"two patches", "", false},
		{"baseline that is no test results", map[string]map[string][]byte{"a": {"gcloop-baseline.json": []byte(`{"coverage": 3}`)}},
			"", "baseline: a/gcloop-baseline.json", false},
		{"patch over the budget", map[string]map[string][]byte{"a": {"gcloop-changes.patch": []byte(newTest + strings.Repeat("+x\n", 1<<12))}},
			"", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, run := artifactWorld(t)
			var names []string
			for _, n := range []string{"a", "b"} {
				if files, ok := tt.files[n]; ok {
					s.AddArtifact("o", "r", run, n, ghfake.Zip(t, files))
					names = append(names, n)
				}
			}
			got, err := Evidence(context.Background(), s.Client("tok").Actions, nil, "o", "r", run, names, decide.Coverage, Limits{Budget: 4 << 10})
			if tt.overBudget {
				if !errors.Is(err, ErrTooLarge) {
					t.Fatalf("err %v, want the round over its budget", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.patch != "" && (got.PatchErr == nil || !errors.Is(got.PatchErr, pushfix.ErrPatch) || !strings.Contains(got.PatchErr.Error(), tt.patch) || got.Patch != nil) {
				t.Errorf("patch %v, error %v: want an ErrPatch saying %q", got.Patch, got.PatchErr, tt.patch)
			}
			if tt.baseline != "" && (got.BaselineErr == nil || !strings.Contains(got.BaselineErr.Error(), tt.baseline)) {
				t.Errorf("baseline error %v: want one saying %q", got.BaselineErr, tt.baseline)
			}
		})
	}
}

// FuzzUnpackChanges unpacks an artifact whose patch and baseline hold
// arbitrary bytes, the way Evidence does: no panic, the readers stay
// within the budget, and a patch or baseline that cannot be read is kept
// as the round's reason, never returned as an error of the delivery.
func FuzzUnpackChanges(f *testing.F) {
	f.Add([]byte(newTest), []byte(junitBefore))
	f.Add([]byte("diff --git a/x_test.go b/x_test.go\nGIT binary patch\nliteral 6\nNcmZQzWJ=1+0{{Yf0X+Z!\n\n"), []byte(`{"Action":"pass","Package":"p","Test":"TestA"}`+"\n"))
	f.Add([]byte("diff --git a/../x b/../x\n"), []byte("<testsuites>"))
	const budget = 64 << 10
	f.Fuzz(func(t *testing.T, patch, baseline []byte) {
		data := buildZip(t, entry{name: "gcloop-changes.patch", data: string(patch)}, entry{name: "out/gcloop-baseline.json", data: string(baseline)})
		out := &Read{}
		b := &Budget{}
		err := out.unpack("art", bytes.NewReader(data), int64(len(data)), decide.Coverage, Limits{Budget: budget}, b)
		if b.Used > budget+64<<10 {
			t.Fatalf("the readers took %d bytes of a %d budget", b.Used, budget)
		}
		if err != nil {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unpack: %v: only the budget may fail the artifact", err)
			}
			return
		}
		if (out.Patch == nil) == (out.PatchErr == nil) {
			t.Fatalf("patch %v, error %v: want exactly one", out.Patch, out.PatchErr)
		}
		if out.PatchErr != nil && !errors.Is(out.PatchErr, pushfix.ErrPatch) {
			t.Fatalf("patch error %v: want ErrPatch", out.PatchErr)
		}
		if (out.Baseline == nil) == (out.BaselineErr == nil) {
			t.Fatalf("baseline %v, error %v: want exactly one", out.Baseline, out.BaselineErr)
		}
		if len(out.Pieces) != 0 {
			t.Fatalf("the patch or the baseline was read as evidence: %+v", out.Pieces)
		}
	})
}
