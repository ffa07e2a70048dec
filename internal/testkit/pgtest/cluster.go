package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Config says how to start a cluster; the zero value finds everything.
type Config struct {
	// BinDir holds initdb and postgres; "" searches for them.
	BinDir string
	// User runs the server when the process is root, which PostgreSQL
	// refuses to be; "" is the postgres system user, else nobody.
	User string
}

// Cluster is a running PostgreSQL server of the tests, owned by this
// process.
type Cluster struct {
	dir  string // the temporary directory: data/, the socket, the log
	port int
	bin  string              // the directory of initdb and postgres
	cred *syscall.Credential // whom the server runs as; nil: this process's user
	cmd  *exec.Cmd
	done chan struct{} // closed when the server exited
	err  error         // the server's exit, once done is closed

	adminOnce sync.Once
	adminPool *pgxpool.Pool
	adminErr  error
}

// Superuser is the cluster's superuser; it needs no password.
const Superuser = "gcloop"

// URL is the address of database name on the cluster.
func (c *Cluster) URL(name string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, c.port, name)
}

// Dir is the cluster's temporary directory: data, unix socket and log.
func (c *Cluster) Dir() string { return c.dir }

// Start initializes a cluster in a new temporary directory and starts it.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	bin := cfg.BinDir
	if bin == "" {
		var err error
		if bin, err = findBinDir(); err != nil {
			return nil, err
		}
	}
	cred, err := credential(cfg.User)
	if err != nil {
		return nil, err
	}
	dir, err := tempDir(cred)
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, done: make(chan struct{}), bin: bin, cred: cred}
	if err := c.start(ctx, bin, cred); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, bin string, cred *syscall.Credential) error {
	data := filepath.Join(c.dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"),
		"-D", data, "-U", Superuser, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Env = childEnv(c.dir)
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("%s in %s: %w\n%s", initdb.Path, data, err, tail(out))
	}
	for attempt := 1; ; attempt++ {
		err := c.serve(ctx, bin, data, cred)
		if err == nil {
			return nil
		}
		// Another process may take the free port between our look and
		// the server's bind: try another, a few times.
		if attempt == 3 || ctx.Err() != nil {
			return err
		}
	}
}

// serve starts the server on a free port and waits until it answers.
func (c *Cluster) serve(ctx context.Context, bin, data string, cred *syscall.Credential) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	return c.serveOn(ctx, bin, data, cred, port)
}

// Restart stops the server (fast shutdown: every connection is ended) and
// starts it again on the same port and data, as an operator's restart of
// the database does to its clients.
func (c *Cluster) Restart(ctx context.Context) error {
	if err := c.halt(); err != nil {
		return err
	}
	return c.serveOn(ctx, c.bin, filepath.Join(c.dir, "data"), c.cred, c.port)
}

// serveOn starts the server on port and waits until it answers.
func (c *Cluster) serveOn(ctx context.Context, bin, data string, cred *syscall.Credential, port int) error {
	logPath := filepath.Join(c.dir, "postgres.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("server log: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"),
		"-D", data, "-p", strconv.Itoa(port), "-k", c.dir,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=500", "-c", "shared_buffers=64MB",
		"-c", "max_wal_size=128MB", "-c", "min_wal_size=32MB",
		"-c", "log_min_messages=warning", "-c", "log_min_error_statement=panic")
	// The server as a child that dies with this process, also when it is
	// killed: SIGQUIT is PostgreSQL's immediate shutdown.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	cmd.Env = childEnv(c.dir)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	c.cmd, c.port = cmd, port
	c.done = make(chan struct{})
	go func(done chan struct{}) {
		c.err = cmd.Wait()
		close(done)
	}(c.done)

	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-c.done:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("%s on port %d exited (%v):\n%s", cmd.Path, port, c.err, tail(log))
		case <-ctx.Done():
			c.Stop()
			return fmt.Errorf("postgres on port %d did not answer: %w", port, ctx.Err())
		case <-deadline.C:
			c.Stop()
			return fmt.Errorf("postgres on port %d did not answer in %v: %w", port, startTimeout, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop shuts the server down (fast shutdown: connections are ended) and
// removes its directory.
func (c *Cluster) Stop() error {
	if c.adminPool != nil {
		c.adminPool.Close()
	}
	if err := c.halt(); err != nil {
		return err
	}
	if err := os.RemoveAll(c.dir); err != nil {
		return fmt.Errorf("remove the cluster's directory: %w", err)
	}
	return nil
}

// halt ends the server process (fast shutdown; killed if it takes more
// than 30 s) and waits for it.
func (c *Cluster) halt() error {
	if c.cmd == nil || c.cmd.Process == nil {
		return nil
	}
	select {
	case <-c.done:
		return nil // exited already
	default:
	}
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return fmt.Errorf("stop postgres: %w", err)
	}
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
	return nil
}

// findBinDir finds a directory with both initdb and postgres.
func findBinDir() (string, error) {
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	versions, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest first: "9.6" < "15" compares as numbers.
	sort.Slice(versions, func(i, j int) bool { return versionOf(versions[i]) > versionOf(versions[j]) })
	dirs = append(dirs, versions...)
	dirs = append(dirs, "/usr/local/pgsql/bin", "/usr/local/bin")
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", errNotFound
}

func versionOf(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// credential is whom the server runs as: nil (this process's user) unless
// this process is root.
func credential(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	names := []string{name}
	if name == "" {
		names = []string{"postgres", "nobody"}
	}
	for _, n := range names {
		u, err := user.Lookup(n)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil || uid == 0 {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	return nil, fmt.Errorf("running as root, which PostgreSQL refuses, and no user %v to run it as", names)
}

// tempDir makes the cluster's directory, owned by the server's user: in
// memory (/dev/shm) when the machine has room there, as the cluster holds
// nothing worth a disk write, else in the temporary directory.
func tempDir(cred *syscall.Credential) (string, error) {
	base := os.TempDir()
	if roomy("/dev/shm") {
		base = "/dev/shm"
	} else if cred != nil {
		// The server's user must reach it.
		if fi, err := os.Stat(base); err != nil || fi.Mode().Perm()&0o001 == 0 {
			base = "/tmp"
		}
	}
	removeStale(base)
	dir, err := os.MkdirTemp(base, "gcloop-pgtest-")
	if err != nil {
		return "", fmt.Errorf("cluster directory: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("cluster directory %s for uid %d: %w", dir, cred.Uid, err)
		}
	}
	return dir, nil
}

// childEnv is the environment of initdb and the server: this process's,
// with a HOME the server's user may read and no PG* settings of the
// caller's.
func childEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if len(kv) >= 2 && kv[:2] == "PG" || len(kv) >= 5 && kv[:5] == "HOME=" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+dir, "LC_ALL=C")
}

// shmNeed is the room /dev/shm must have for a cluster: containers often
// get 64 MiB only, less than one cluster's databases and WAL.
const shmNeed = 2 << 30

// roomy reports whether dir is a directory anyone may write with shmNeed
// bytes free.
func roomy(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o777 != 0o777 {
		return false
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	return st.Bavail*uint64(st.Bsize) >= shmNeed
}

// staleAge is how old a cluster's directory without a running server must
// be to be taken for the leftover of a killed test binary; a younger one
// may be another binary's, still in initdb.
const staleAge = 10 * time.Minute

// removeStale removes the directories under base that killed test
// binaries left: in /dev/shm they hold memory until the machine restarts.
func removeStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "gcloop-pgtest-*"))
	for _, dir := range dirs {
		fi, err := os.Stat(dir)
		if err != nil || time.Since(fi.ModTime()) < staleAge {
			continue
		}
		if pid, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid")); err == nil {
			first, _, _ := bytes.Cut(pid, []byte("\n"))
			if n, err := strconv.Atoi(string(first)); err == nil && n > 0 && syscall.Kill(n, 0) != syscall.ESRCH {
				continue // its server still runs
			}
		}
		os.RemoveAll(dir)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail is the end of a program's output, for an error.
func tail(out []byte) string {
	out = bytes.TrimSpace(out)
	if len(out) > 2000 {
		out = append([]byte("…"), out[len(out)-2000:]...)
	}
	return string(out)
}
