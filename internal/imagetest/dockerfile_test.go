package imagetest

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// The build command of the Dockerfile, which TestBinaryIsStaticAndRunsInAnEmptyRoot
// repeats: the image and the tested binary are built the same way.
const (
	versionVar = "github.com/gcloop/gcloop/cmd/gcloop/internal/cli.version"
	buildLine  = `RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X ` + versionVar + `=${VERSION}" -o /out/gcloop ./cmd/gcloop`
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line    int    // line of the keyword
	keyword string // upper-cased: FROM, RUN, ...
	args    string // the rest, trimmed
}

func (in instruction) String() string { return in.keyword + " " + in.args }

// parseDockerfile splits a Dockerfile into instructions: comment lines are
// dropped and lines ending in a backslash are joined to the next.
func parseDockerfile(t *testing.T, b []byte) []instruction {
	t.Helper()
	var out []instruction
	var cur strings.Builder
	start := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && cur.Len() == 0) {
			continue
		}
		if cur.Len() == 0 {
			start = n
		} else {
			cur.WriteByte(' ')
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(strings.TrimSpace(cont))
			continue
		}
		cur.WriteString(line)
		keyword, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{line: start, keyword: strings.ToUpper(keyword), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read Dockerfile: %v", err)
	}
	if cur.Len() > 0 {
		t.Fatalf("Dockerfile line %d: continuation runs off the end of the file", start)
	}
	return out
}

// stages splits instructions at each FROM; stage 0 is the first FROM.
func stages(ins []instruction) [][]instruction {
	var out [][]instruction
	for _, in := range ins {
		if in.keyword == "FROM" {
			out = append(out, nil)
		}
		if len(out) > 0 {
			out[len(out)-1] = append(out[len(out)-1], in)
		}
	}
	return out
}

func TestDockerfileBuildsAStaticBinaryOnAMinimalBase(t *testing.T) {
	t.Parallel()
	st := stages(parseDockerfile(t, readRoot(t, "Dockerfile")))
	if len(st) != 2 {
		t.Fatalf("Dockerfile has %d stages; want 2 (build, then the runtime image)", len(st))
	}
	build, final := st[0], st[len(st)-1]

	if from := build[0].args; !strings.HasPrefix(from, "golang:1.26") || !strings.HasSuffix(from, " AS build") {
		t.Errorf("build stage %q: want golang:1.26… AS build (go.mod needs go >= 1.25)", from)
	}
	var haveBuild, haveDownload bool
	for _, in := range build {
		s := in.String()
		switch {
		case s == buildLine:
			haveBuild = true
		case in.keyword == "RUN" && strings.Contains(s, "go mod download"):
			haveDownload = true
		case in.keyword == "COPY" && in.args == ". ." && !haveDownload:
			t.Errorf("line %d: the whole context is copied before go mod download; copy go.mod and go.sum first so downloads stay cached", in.line)
		}
	}
	if !haveDownload {
		t.Error("build stage: no go mod download layer")
	}
	if !haveBuild {
		t.Errorf("build stage: no instruction\n\t%s\n(internal/imagetest builds the tested binary with exactly this command)", buildLine)
	}

	if final[0].args != "gcr.io/distroless/static-debian12" {
		t.Errorf("runtime image FROM %q: want gcr.io/distroless/static-debian12 (CA certificates, no libc, no shell)", final[0].args)
	}
	want := map[string]bool{
		"COPY --from=build /out/gcloop /gcloop": false,
		`ENTRYPOINT ["/gcloop"]`:                false,
	}
	for _, in := range final[1:] {
		s := in.String()
		if _, ok := want[s]; ok {
			want[s] = true
			continue
		}
		// DESIGN §12: the runner picks the user and the working directory.
		t.Errorf("line %d: %s in the runtime image; want only the binary and its entrypoint (no USER, no WORKDIR)", in.line, s)
	}
	for s, seen := range want {
		if !seen {
			t.Errorf("runtime image: no %s", s)
		}
	}
}

func TestDockerfileParserJoinsContinuationsAndDropsComments(t *testing.T) {
	t.Parallel()
	got := parseDockerfile(t, []byte("# c\nFROM a AS b\n\nRUN x \\\n  # inside\n  y\nuser nobody\n"))
	want := []string{"FROM a AS b", "RUN x y", "USER nobody"}
	if len(got) != len(want) {
		t.Fatalf("got %d instructions %v; want %v", len(got), got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("instruction %d = %q; want %q", i, got[i], want[i])
		}
	}
}
