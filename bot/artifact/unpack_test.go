package artifact

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/gcloop/gcloop/bot/evidence"
	"github.com/gcloop/gcloop/bot/ghfake"
	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/parse"
)

const review = `{"review_score":8,"gc_signal":"CONVERGED","findings":[]}`

// zeros is n zero bytes, the payload of a zip bomb.
func zeros(n int) string { return string(make([]byte, n)) }

func TestUnpackFeedsOnlyWhatKeepAccepts(t *testing.T) {
	t.Parallel()
	data := buildZip(t,
		entry{name: "review-results.json", data: review},
		entry{name: "screenshot.png", data: "\x89PNG\r\n\x1a\n" + zeros(1<<20)},
		entry{name: "logs/zeros.bin", data: zeros(4 << 20)})
	b := &Budget{}
	var fed []string
	skipped, err := Unpack("art", bytes.NewReader(data), int64(len(data)), Limits{Budget: 1 << 20}, b, evidence.SniffLen, evidence.Known,
		func(file string, r io.Reader) error {
			fed = append(fed, file)
			_, err := io.Copy(io.Discard, r)
			return err
		})
	if err != nil {
		t.Fatalf("Unpack: %v (5 MiB of unknown files must not count against a 1 MiB budget)", err)
	}
	if diff := cmp.Diff([]string{"review-results.json"}, fed); diff != "" {
		t.Errorf("files fed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"screenshot.png", "logs/zeros.bin"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if b.Used != int64(len(review)) {
		t.Errorf("budget used = %d, want the %d bytes of the file fed", b.Used, len(review))
	}
}

func TestUnpackHoldsTheBudgetAcrossArtifacts(t *testing.T) {
	t.Parallel()
	big := `{"review_score":8,"findings":[],"pad":"` + strings.Repeat("x", 600<<10) + `"}`
	lim := Limits{Budget: 1 << 20}
	b := &Budget{}
	drain := func(_ string, r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }
	one := buildZip(t, entry{name: "a.json", data: big})
	if _, err := Unpack("first", bytes.NewReader(one), int64(len(one)), lim, b, 64, func([]byte) bool { return true }, drain); err != nil {
		t.Fatalf("first artifact: %v", err)
	}
	two := buildZip(t, entry{name: "b.json", data: big})
	_, err := Unpack("second", bytes.NewReader(two), int64(len(two)), lim, b, 64, func([]byte) bool { return true }, drain)
	if !errors.Is(err, ErrTooLarge) || !Refused(err) {
		t.Fatalf("second artifact: err = %v, want ErrTooLarge", err)
	}
	for _, want := range []string{`artifact "second"`, `entry "b.json"`, "budget of 1MiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if b.Used > lim.Budget+64<<10 {
		t.Errorf("budget used = %d: reading went on far past the %d allowed", b.Used, lim.Budget)
	}
}

func TestUnpackRefusalSurvivesAReaderThatSwallowsErrors(t *testing.T) {
	t.Parallel()
	data := buildZip(t, entry{name: "critique.ndjson", data: zeros(2 << 20)})
	_, err := Unpack("art", bytes.NewReader(data), int64(len(data)), Limits{Budget: 1 << 20}, &Budget{}, 64, func([]byte) bool { return true },
		func(_ string, r io.Reader) error {
			io.Copy(io.Discard, r) // a fallback reader: unreadable data is not its error
			return nil
		})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func TestUnpackRefusesManyDirectoryRecordsBeforeReadingThem(t *testing.T) {
	t.Parallel()
	var es []entry
	for i := range 50 {
		es = append(es, entry{name: strings.Repeat("d", i+1), data: ""})
	}
	data := buildZip(t, es...)
	_, err := Unpack("art", bytes.NewReader(data), int64(len(data)), Limits{MaxFiles: 49}, &Budget{}, 64, func([]byte) bool { return true },
		func(string, io.Reader) error { t.Error("a file was fed"); return nil })
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 49 entries") {
		t.Fatalf("err = %v, want more than 49 entries", err)
	}
}

func TestCountMagic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(4)) + 'O' // O P Q R: no "PK" by chance
		}
		return b
	}
	sig := []byte("PK\x01\x02")
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"one signature", sig},
		{"a signature cut by the 64 KiB buffer", append(append(noise(64<<10-2), sig...), noise(10)...)},
		{"signatures back to back across buffers", bytes.Repeat(sig, 40000)},
		{"a part of a signature at the end", append(noise(100), "PK\x01"...)},
		{"noise", noise(200 << 10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := int64(bytes.Count(tc.data, sig))
			for _, r := range []io.Reader{bytes.NewReader(tc.data), iotest.HalfReader(bytes.NewReader(tc.data)), iotest.OneByteReader(bytes.NewReader(tc.data))} {
				got, err := countMagic(r, sig)
				if err != nil || got != want {
					t.Fatalf("countMagic = %d, %v; want %d", got, err, want)
				}
			}
		})
	}
}

func TestSpoolLeavesNoFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sp, err := newSpool(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.f.WriteString("PK\x05\x06"); err != nil {
		t.Fatal(err)
	}
	sp.Size = 4
	if left, _ := os.ReadDir(dir); len(left) > 0 && sp.path == "" {
		t.Errorf("spool unlinked, yet %s is in the directory", left[0].Name())
	}
	got, err := io.ReadAll(io.NewSectionReader(sp, 0, sp.Size))
	if err != nil || string(got) != "PK\x05\x06" {
		t.Errorf("read back %q, %v", got, err)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("after Close, %s is still in the directory", left[0].Name())
	}
}

func TestSpoolInMemoryWhereNoDirectoryCanBeWritten(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no", "such", "dir")
	if _, err := newSpool(missing, false); err == nil {
		t.Fatal("a spool in a missing directory, without the memory fallback")
	}
	sp, err := newSpool(missing, true)
	if err != nil || !sp.InMemory() {
		t.Fatalf("newSpool = %v, in memory %v; want a spool in memory", err, sp != nil && sp.InMemory())
	}
	data := buildZip(t, entry{name: "review-results.json", data: review})
	sp.Write(data[:10])
	sp.reset()
	sp.Write(data)
	sp.Size = int64(len(data))
	var fed []string
	if _, err := Unpack("art", sp, sp.Size, Limits{}, &Budget{}, evidence.SniffLen, evidence.Known, func(file string, r io.Reader) error {
		fed = append(fed, file)
		return nil
	}); err != nil || len(fed) != 1 {
		t.Fatalf("Unpack from memory: %v, fed %v", err, fed)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestDownloadRefusesByTheAnnouncedSizeBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	called := fakeDownloader{err: errors.New("the API was called")}
	_, err := Download(context.Background(), called, "o", "r", 1, 65<<20, nil, Limits{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "announced as 68157440 bytes, more than 64MiB") {
		t.Fatalf("err = %v, want a refusal by the announced size", err)
	}
}

func TestDownloadStopsWellPastTheAnnouncedSize(t *testing.T) {
	t.Parallel()
	s, client, run := fakeGitHub(t)
	id := s.AddArtifact("o", "r", run, "review", make([]byte, 256<<10))
	s.StreamArtifacts(true) // chunked: no Content-Length to refuse by
	for _, tc := range []struct {
		announced int64
		ok        bool
	}{{announced: 256 << 10, ok: true}, {announced: 100 << 10}} {
		sp, err := Download(context.Background(), client.Actions, "o", "r", id, tc.announced, &http.Client{}, Limits{})
		if tc.ok {
			if err != nil || sp.Size != 256<<10 {
				t.Fatalf("announced %d: %v", tc.announced, err)
			}
			sp.Close()
			continue
		}
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "well past the 102400 bytes the artifact list announced") {
			t.Fatalf("announced %d: err = %v, want a refusal", tc.announced, err)
		}
	}
}

func TestSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "64MiB", want: 64 << 20}, {in: "1GiB", want: 1 << 30}, {in: "512KiB", want: 512 << 10},
		{in: "65536", want: 65536}, {in: "100B", want: 100}, {in: " 8 MiB ", want: 8 << 20}, {in: "0", want: 0},
		{in: "", bad: true}, {in: "MiB", bad: true}, {in: "-1MiB", bad: true}, {in: "+1", bad: true},
		{in: "1.5MiB", bad: true}, {in: "64MB", bad: true}, {in: "99999999999GiB", bad: true}, {in: "1e6", bad: true},
	} {
		got, err := ParseSize(tc.in)
		if tc.bad != (err != nil) || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
		if !tc.bad && tc.want > 0 {
			if back, err := ParseSize(Size(tc.want)); err != nil || back != tc.want {
				t.Errorf("ParseSize(Size(%d)) = %d, %v", tc.want, back, err)
			}
		}
	}
}

func TestRefused(t *testing.T) {
	t.Parallel()
	zeros := buildZip(t, entry{name: "liar", raw: true, method: 8, declared: 10, compressed: deflate(t, make([]byte, 4096))})
	_, corrupt := unpackAll("art", zeros, Limits{})
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{ErrTooLarge, true}, {ErrUnsafe, true}, {corrupt, true},
		{ErrNotFound, false}, {ErrExpired, false}, {errors.New("connection reset"), false},
		{&parse.Error{File: "x", Msg: "bad"}, false},
	} {
		if got := Refused(tc.err); got != tc.want {
			t.Errorf("Refused(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// world is a repository on the fake GitHub with a run to attach artifacts to.
func artifactWorld(t *testing.T) (*ghfake.Server, int64) {
	t.Helper()
	s := ghfake.New(t)
	s.AddRepo("o", "r", 1, "main")
	s.AddToken("tok", "gcloop", true)
	return s, s.AddWorkflowRun("o", "r", ghfake.RunSpec{HeadSHA: strings.Repeat("a", 40), HeadBranch: "feature"})
}

func TestEvidence(t *testing.T) {
	t.Parallel()
	s, run := artifactWorld(t)
	s.AddArtifact("o", "r", run, "review", ghfake.Zip(t, map[string][]byte{
		"review-results.json": []byte(review), "notes.txt": []byte("plain words, no evidence")}))
	s.AddArtifact("o", "r", run, "junk", ghfake.Zip(t, map[string][]byte{"zeros.bin": make([]byte, 8<<20)}))
	c := s.Client("tok")
	got, err := Evidence(context.Background(), c.Actions, nil, "o", "r", run, []string{"review", "junk"}, decide.Review, Limits{Budget: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got.Artifacts != 2 || len(got.Pieces) != 1 || got.Pieces[0].Name != "review/review-results.json" {
		t.Errorf("read %d artifacts, pieces %+v; want 2 and review/review-results.json", got.Artifacts, got.Pieces)
	}
	if diff := cmp.Diff([]string{"review/notes.txt", "junk/zeros.bin"}, got.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if got.Unpacked != int64(len(review)) {
		t.Errorf("unpacked %d bytes, want %d", got.Unpacked, len(review))
	}
}

func TestEvidenceRefusesABombWithoutDownloadingTheRest(t *testing.T) {
	t.Parallel()
	s, run := artifactWorld(t)
	bomb := ghfake.Zip(t, map[string][]byte{"review-results.json": append([]byte(`{"review_score":8,"pad":"`), make([]byte, 8<<20)...)})
	s.AddArtifact("o", "r", run, "bomb", bomb)
	s.AddArtifact("o", "r", run, "big", bytes.Repeat([]byte("x"), 2<<20))
	c := s.Client("tok")
	_, err := Evidence(context.Background(), c.Actions, nil, "o", "r", run, []string{"bomb", "big"}, decide.Review, Limits{Budget: 1 << 20})
	if !Refused(err) || !strings.Contains(err.Error(), `artifact "big": announced as 2097152 bytes, more than 1MiB`) {
		t.Fatalf("err = %v, want the big artifact refused by its announced size", err)
	}
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/zip") {
			t.Errorf("%s %s: an artifact was downloaded", r.Method, r.Path)
		}
	}
	_, err = Evidence(context.Background(), c.Actions, nil, "o", "r", run, []string{"bomb"}, decide.Review, Limits{Budget: 1 << 20})
	if !Refused(err) || !strings.Contains(err.Error(), `artifact "bomb": entry "review-results.json": declares 8388633 bytes, more than 1MiB`) {
		t.Fatalf("err = %v, want the bomb refused naming its entry", err)
	}
}

// FuzzUnpackEvidence unpacks arbitrary bytes the way Evidence does, into
// the evidence readers: it never panics, names only safe files, and never
// lets the readers take much more than the budget.
func FuzzUnpackEvidence(f *testing.F) {
	f.Add(buildZip(f, entry{name: "review-results.json", data: review}, entry{name: "x.png", data: "\x89PNG"}))
	f.Add(buildZip(f, entry{name: "cov.out", data: "mode: set\na.go:1.1,2.2 1 1\n"}))
	f.Add(buildZip(f, entry{name: "r.json", raw: true, method: 8, declared: 10, compressed: deflate(f, []byte(`{"review_score":`+zeros(4096)))}))
	f.Add([]byte(review))
	const budget = 64 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &Budget{}
		skipped, err := Unpack("art", bytes.NewReader(data), int64(len(data)), Limits{Budget: budget, MaxFiles: 50}, b, evidence.SniffLen, evidence.Known,
			func(file string, r io.Reader) error {
				_, err := evidence.Read("art/"+file, r, decide.Critique) // the loop with a fallback for anything unreadable
				return err
			})
		if b.Used > budget+64<<10 {
			t.Fatalf("the readers took %d bytes of a %d budget", b.Used, budget)
		}
		if err != nil {
			return
		}
		for _, n := range skipped {
			if _, serr := safeName(n); serr != nil || n == "" {
				t.Fatalf("skipped an unsafe name %q", n)
			}
		}
	})
}

// FuzzParseSize: any text is a size or an error, never a panic; a plain
// number of bytes reads as itself.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"64MiB", "1GiB", "512KiB", "0", "1099511627776", "-1", "9MiBMiB", " 5 MiB", "", "+5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("ParseSize(%q) = %d with an error", s, n)
			}
			return
		}
		if n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if plain, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64); perr == nil && plain != n {
			t.Fatalf("ParseSize(%q) = %d, want the number itself", s, n)
		}
	})
}
