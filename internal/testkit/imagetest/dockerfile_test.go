package imagetest

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The build command of the Dockerfile, which TestBinaryIsStaticAndRunsInAnEmptyRoot
// repeats: the image and the tested binary are built the same way.
const (
	versionVar = "github.com/gcloop/gcloop/cmd/gcloop/internal/cli.version"
	buildLine  = `RUN CGO_ENABLED=0 go build -tags nobot -trimpath -ldflags "-s -w -X ` + versionVar + `=${VERSION}" -o /out/gcloop ./cmd/gcloop`
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
	build := st[0]

	if from := build[0].args; !strings.HasPrefix(from, "golang:1.26") || !strings.HasSuffix(from, " AS build") {
		t.Errorf("build stage %q: want golang:1.26… AS build (go.mod needs go >= 1.25)", from)
	}
	var haveBuild, haveDownload, haveCA bool
	for _, in := range build {
		s := in.String()
		switch {
		case s == buildLine:
			haveBuild = true
		case s == caLine:
			haveCA = true
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
	if !haveCA {
		t.Errorf("build stage: no instruction\n\t%s\n(scratch has no CA bundle of its own)", caLine)
	}
}

// caLine puts the build image's CA bundle beside the binary.
const caLine = "RUN cp /etc/ssl/certs/ca-certificates.crt /out/ca-certificates.crt"

// runtimeImage is what the final stage of both Dockerfiles must hold: the
// destinations of its COPY instructions and its entrypoint.
var runtimeImage = []string{
	"FROM scratch",
	"COPY → /etc/ssl/certs/ca-certificates.crt",
	"COPY → /gcloop",
	`ENTRYPOINT ["/gcloop"]`,
}

// finalStage describes the last stage of a Dockerfile as runtimeImage does,
// with the sources of its COPY instructions, and lists every other
// instruction as a problem; allowed are instructions that change nothing in
// the image (an ARG).
func finalStage(t *testing.T, file string, content []byte, allowed ...string) (shape, sources, problems []string) {
	t.Helper()
	st := stages(parseDockerfile(t, content))
	if len(st) == 0 {
		return nil, nil, []string{file + ": no FROM"}
	}
	for _, in := range st[len(st)-1] {
		switch {
		case in.keyword == "COPY":
			f := strings.Fields(in.args)
			if len(f) < 2 {
				problems = append(problems, fmt.Sprintf("%s line %d: %s: want COPY SOURCE DEST", file, in.line, in))
				continue
			}
			shape = append(shape, "COPY → "+f[len(f)-1])
			sources = append(sources, strings.Join(f[:len(f)-1], " "))
		case in.keyword == "FROM" || in.keyword == "ENTRYPOINT":
			shape = append(shape, in.String())
		case slices.Contains(allowed, in.String()):
		default:
			// DESIGN §12: the runner picks the user and the working directory.
			problems = append(problems, fmt.Sprintf("%s line %d: %s in the runtime image; want only the CA bundle, the binary and its entrypoint (no USER, no WORKDIR)", file, in.line, in))
		}
	}
	return shape, sources, problems
}

func TestBothDockerfilesMakeTheSameRuntimeImage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file    string
		allowed []string
		sources []string
	}{
		{"Dockerfile", nil, []string{"--from=build /out/ca-certificates.crt", "--from=build /out/gcloop"}},
		{"Dockerfile.release", []string{"ARG TARGETARCH"}, []string{"ca-certificates.crt", "gcloop-linux-${TARGETARCH}"}},
	} {
		shape, sources, problems := finalStage(t, tc.file, readRoot(t, tc.file), tc.allowed...)
		for _, p := range problems {
			t.Error(p)
		}
		if diff := cmp.Diff(runtimeImage, shape); diff != "" {
			t.Errorf("%s: the runtime image differs from the released one (-want +got):\n%s", tc.file, diff)
		}
		if diff := cmp.Diff(tc.sources, sources); diff != "" {
			t.Errorf("%s: COPY sources (-want +got):\n%s", tc.file, diff)
		}
	}
	if n := len(stages(parseDockerfile(t, readRoot(t, "Dockerfile.release")))); n != 1 {
		t.Errorf("Dockerfile.release has %d stages; want 1, so that it builds with no pull", n)
	}
}

func TestFinalStageCheckFindsWhatTheImageMustNotHave(t *testing.T) {
	t.Parallel()
	bad := "FROM golang AS build\nRUN x\nFROM alpine\nUSER 1001\nWORKDIR /w\nCOPY a /gcloop\nARG X\nENTRYPOINT [\"/gcloop\"]\n"
	shape, _, problems := finalStage(t, "D", []byte(bad))
	if diff := cmp.Diff([]string{"FROM alpine", "COPY → /gcloop", `ENTRYPOINT ["/gcloop"]`}, shape); diff != "" {
		t.Errorf("shape (-want +got):\n%s", diff)
	}
	want := []string{
		"D line 4: USER 1001 in the runtime image; want only the CA bundle, the binary and its entrypoint (no USER, no WORKDIR)",
		"D line 5: WORKDIR /w in the runtime image; want only the CA bundle, the binary and its entrypoint (no USER, no WORKDIR)",
		"D line 7: ARG X in the runtime image; want only the CA bundle, the binary and its entrypoint (no USER, no WORKDIR)",
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
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
