package imagetest

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// testVersion is linked into the tested binary the way the Dockerfile links
// ${VERSION}, so that `gcloop version` proves the -X path is right.
const testVersion = "v0.0.0-imagetest"

// caBundle is the Debian CA bundle, the file the image ships beside the binary.
const caBundle = "/etc/ssl/certs/ca-certificates.crt"

// buildLikeTheDockerfile builds ./cmd/gcloop as the Dockerfile's build line
// does (CGO_ENABLED=0, -trimpath, the same -ldflags) into dir.
func buildLikeTheDockerfile(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "gcloop")
	cmd := exec.Command(goTool(t), "build", "-tags", "nobot", "-trimpath",
		"-ldflags", "-s -w -X "+versionVar+"="+testVersion,
		"-o", bin, "./cmd/gcloop")
	cmd.Dir = abs
	// Later entries win: a caller's GOFLAGS (say -race, which needs cgo)
	// or cross-compilation settings must not change what is built.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly",
		"GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/gcloop as the Dockerfile does: %v\n%s", err, out)
	}
	return bin
}

// staticProblems lists why the ELF file at path is not fully static: a
// dynamic loader (PT_INTERP), a dynamic section (PT_DYNAMIC) or shared
// libraries (DT_NEEDED).
func staticProblems(path string) ([]string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s as ELF: %w", path, err)
	}
	defer f.Close()
	var problems []string
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_INTERP:
			b, _ := io.ReadAll(io.LimitReader(p.Open(), 256))
			problems = append(problems, fmt.Sprintf("PT_INTERP program header: needs the dynamic loader %q", bytes.TrimRight(b, "\x00")))
		case elf.PT_DYNAMIC:
			problems = append(problems, "PT_DYNAMIC program header: dynamically linked")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return nil, fmt.Errorf("read the DT_NEEDED entries of %s: %w", path, err)
	}
	if len(libs) > 0 {
		problems = append(problems, fmt.Sprintf("DT_NEEDED shared libraries %v", libs))
	}
	return problems, nil
}

// emptyRoot makes a directory that holds only the binary at /gcloop and the
// CA bundle, like the image.
func emptyRoot(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	copyFile(t, bin, filepath.Join(dir, "gcloop"), 0o755)
	certs := filepath.Join(dir, "etc", "ssl", "certs")
	if err := os.MkdirAll(certs, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(caBundle); err == nil {
		copyFile(t, caBundle, filepath.Join(certs, "ca-certificates.crt"), 0o644)
	} else {
		t.Logf("no %s on this machine; the root holds the binary alone", caBundle)
	}
	return dir
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// runVersion runs `gcloop version` confined to dir: chrooted into it when
// the test may chroot (root with CAP_SYS_CHROOT), else with an empty
// environment and dir as the working directory, which is said in the log.
func runVersion(t *testing.T, dir string) (stdout, stderr string, err error) {
	t.Helper()
	run := func(cmd *exec.Cmd) (string, string, error) {
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return o.String(), e.String(), err
	}
	if os.Geteuid() == 0 {
		cmd := &exec.Cmd{
			Path:        "/gcloop",
			Args:        []string{"/gcloop", "version"},
			Env:         []string{},
			Dir:         "/",
			SysProcAttr: &syscall.SysProcAttr{Chroot: dir},
		}
		o, e, err := run(cmd)
		if !errors.Is(err, syscall.EPERM) {
			t.Logf("ran /gcloop version chrooted into %s", dir)
			return o, e, err
		}
		t.Logf("chroot refused (%v): running without it", err)
	} else {
		t.Logf("not root (euid %d), so no chroot: running %s/gcloop with an empty environment in that directory", os.Geteuid(), dir)
	}
	cmd := &exec.Cmd{
		Path: filepath.Join(dir, "gcloop"),
		Args: []string{"gcloop", "version"},
		Env:  []string{},
		Dir:  dir,
	}
	return run(cmd)
}

func TestBinaryIsStaticAndRunsInAnEmptyRoot(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skipf("the image is linux; this is %s", runtime.GOOS)
	}
	bin := buildLikeTheDockerfile(t, t.TempDir())
	problems, err := staticProblems(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("the image's binary is not static: %s (the image is scratch: no libc and no loader)", p)
	}

	dir := emptyRoot(t, bin)
	stdout, stderr, err := runVersion(t, dir)
	if err != nil {
		t.Fatalf("gcloop version in an empty root: %v\nstderr: %s", err, stderr)
	}
	if want := "gcloop " + testVersion + "\n"; stdout != want {
		t.Errorf("gcloop version printed %q; want %q (the version linked with -X %s)", stdout, want, versionVar)
	}
}

func TestStaticCheckRejectsADynamicBinary(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skipf("ELF only; this is %s", runtime.GOOS)
	}
	// A distribution's own ls links libc dynamically; so does this test
	// binary under -race.
	for _, path := range []string{"/bin/ls", "/usr/bin/ls"} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		problems, err := staticProblems(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) == 0 {
			t.Errorf("staticProblems(%s) found nothing; want the dynamic loader and libc named", path)
		}
		return
	}
	t.Skip("no dynamically linked ls on this machine to check against")
}
