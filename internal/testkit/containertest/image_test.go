package containertest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// testVersion is linked into the image's binary as the release links its
// tag, so that `gcloop version` in the container proves the stamping.
const testVersion = "v0.0.0-containertest"

// maxImageBytes is the size budget of the image.
const maxImageBytes = 15 << 20

// root is the module root, three levels above this package.
var root = filepath.Join("..", "..", "..")

var (
	imageOnce sync.Once
	imageTag  string
	imageErr  error
)

// needImage returns the tag of the image built from Dockerfile.release,
// building it on first use. Without a Docker daemon it skips the test, or
// fails it when GCLOOP_CONTAINER_TESTS=1 says the container tests must run.
func needImage(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("the image is linux; this is %s", runtime.GOOS)
	}
	if out, err := exec.Command("docker", "version", "--format", "{{.Server.Version}}").CombinedOutput(); err != nil {
		msg := fmt.Sprintf("no Docker daemon (docker version: %v: %s); .ci/run starts one and sets GCLOOP_CONTAINER_TESTS=1", err, bytes.TrimSpace(out))
		if os.Getenv("GCLOOP_CONTAINER_TESTS") == "1" {
			t.Fatal("GCLOOP_CONTAINER_TESTS=1 but " + msg)
		}
		t.Skip("container tests skipped: " + msg)
	}
	imageOnce.Do(func() { imageTag, imageErr = buildImage() })
	if imageErr != nil {
		t.Fatal(imageErr)
	}
	return imageTag
}

// buildImage builds the static binary as the release workflow does, puts
// it and the machine's CA bundle in a build context with
// Dockerfile.release, and builds the image.
func buildImage() (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	ctx, err := os.MkdirTemp("", "gcloop-image-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(ctx)
	arch := runtime.GOARCH
	build := exec.Command("go", "build", "-tags", "nobot", "-trimpath",
		"-ldflags", "-s -w -X github.com/gcloop/gcloop/cmd/gcloop/internal/cli.version="+testVersion,
		"-o", filepath.Join(ctx, "gcloop-linux-"+arch), "./cmd/gcloop")
	build.Dir = abs
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch, "GOFLAGS=-mod=readonly")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/gcloop as the release does: %v\n%s", err, out)
	}
	for from, to := range map[string]string{
		filepath.Join(abs, "Dockerfile.release"): "Dockerfile.release",
		"/etc/ssl/certs/ca-certificates.crt":     "ca-certificates.crt",
	} {
		b, err := os.ReadFile(from)
		if err != nil {
			return "", fmt.Errorf("build context: %w", err)
		}
		if err := os.WriteFile(filepath.Join(ctx, to), b, 0o644); err != nil {
			return "", fmt.Errorf("build context: %w", err)
		}
	}
	tag := "gcloop-containertest:" + strconv.Itoa(os.Getpid())
	cmd := exec.Command("docker", "build", "--quiet", "-f", filepath.Join(ctx, "Dockerfile.release"),
		"--build-arg", "TARGETARCH="+arch, "-t", tag, ctx)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("docker build -f Dockerfile.release: %v\n%s", err, out)
	}
	return tag, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if imageTag != "" {
		if out, err := exec.Command("docker", "rmi", "--force", imageTag).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "docker rmi %s: %v\n%s", imageTag, err, out)
		}
	}
	os.Exit(code)
}

func TestImageIsSmallAndPrintsItsVersion(t *testing.T) {
	t.Parallel()
	img := needImage(t)
	out, err := exec.Command("docker", "image", "inspect", "--format", "{{.Size}} {{json .Config.User}} {{json .Config.WorkingDir}} {{json .Config.Entrypoint}}", img).Output()
	if err != nil {
		t.Fatalf("docker image inspect: %v", err)
	}
	f := strings.Fields(string(out))
	size, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || len(f) != 4 {
		t.Fatalf("docker image inspect printed %q", out)
	}
	t.Logf("image size: %d bytes (%.1f MiB)", size, float64(size)/(1<<20))
	if size > maxImageBytes {
		t.Errorf("image is %d bytes; want at most %d", size, maxImageBytes)
	}
	if f[1] != `""` || f[2] != `""` || f[3] != `["/gcloop"]` {
		t.Errorf("image user %s, workdir %s, entrypoint %s; want no user, no workdir, [\"/gcloop\"]", f[1], f[2], f[3])
	}
	got, err := exec.Command("docker", "run", "--rm", img, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("docker run IMAGE version: %v\n%s", err, got)
	}
	if want := "gcloop " + testVersion + "\n"; string(got) != want {
		t.Errorf("gcloop version in the image printed %q; want %q", got, want)
	}
}

func TestGitSubcommandsSayTheyAreCLIOnlyInTheImage(t *testing.T) {
	t.Parallel()
	img := needImage(t)
	for _, args := range [][]string{
		{"coverage", "guard"},
		{"coverage", "cycle", "--test", "go test", "--fix", "true", "--coverage", "c.out"},
	} {
		cmd := exec.Command("docker", append([]string{"run", "--rm", img}, args...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		line := strings.TrimSuffix(stderr.String(), "\n")
		if code != 2 || strings.Contains(line, "\n") || !strings.Contains(line, "is CLI-only") || strings.Contains(line, "exec:") {
			t.Errorf("gcloop %s in the image: exit %d, stderr %q; want exit 2 and one line saying it is CLI-only", strings.Join(args, " "), code, stderr.String())
		}
	}
}
