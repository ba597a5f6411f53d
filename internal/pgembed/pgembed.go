// Package pgembed runs a private PostgreSQL cluster as a child process.
//
// The cluster lives in a data directory owned by the application and listens
// only on a unix socket in that directory, so it never conflicts with another
// PostgreSQL server on the machine. The directory is private (0700, owned by
// the user PostgreSQL runs as), and the socket authenticates by peer: only
// the user running this process and PostgreSQL's own log in, as the mapped
// roles (pg_hba.conf and pg_ident.conf, written at every start).
package pgembed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lib/pq"
)

const (
	// socketPort only names the unix socket (.s.PGSQL.5432); no TCP port is opened.
	socketPort = 5432

	// maxSocketPathLen is the longest unix socket path Linux accepts
	// (sizeof(sun_path) minus the terminating NUL).
	maxSocketPathLen = 107

	startTimeout = 30 * time.Second
	stopTimeout  = time.Minute
	logFileName  = "postgres.log"
	logTailLines = 20
)

var versionPattern = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// Options configures a cluster.
type Options struct {
	// DataDir holds the cluster (in a subfolder named after the major
	// version, such as pg15), its log file and its unix socket. It is
	// created if missing. One that exists must belong to this process's
	// user or to the one PostgreSQL runs as (else Start refuses it, naming
	// its owner); one that other users may enter is made 0700, with a
	// warning in the log.
	DataDir string

	// BinDir holds the PostgreSQL server binaries. It defaults to
	// `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin.
	BinDir string

	// Fast trades durability for speed (fsync, synchronous_commit and
	// full_page_writes off). Use it only for throwaway clusters like tests.
	Fast bool

	// StandbyOf is the data folder of a running cluster (its DataDir) to
	// copy, when this one does not exist yet, with pg_basebackup: this
	// cluster is then its streaming-replication standby until promoted
	// (SQL pg_promote()). The copy stays a standby on later starts.
	StandbyOf string

	// Roles are the database roles, besides the superuser postgres, that
	// the user running this process may log in as (a role of fewer
	// rights that a test runs ipam as). The socket refuses every other
	// role, and every other local user.
	Roles []string

	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// Cluster is a running PostgreSQL server started by Start.
type Cluster struct {
	dataDir   string
	pgData    string
	logPath   string
	logOffset int64
	logger    *slog.Logger

	cmd     *exec.Cmd
	exited  chan struct{}
	exitErr error

	stopOnce sync.Once
	stopErr  error
}

// Start initialises the cluster in opts.DataDir unless it already exists,
// starts the server and waits until it accepts connections.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("pgembed: a data directory is required")
	}

	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}

	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("pgembed: unable to resolve the data directory: %w", err)
	}

	socketPath := filepath.Join(dataDir, ".s.PGSQL."+strconv.Itoa(socketPort))
	if len(socketPath) > maxSocketPathLen {
		return nil, fmt.Errorf("pgembed: the unix socket path %s is %d bytes long but the limit is %d bytes: use a shorter data directory", socketPath, len(socketPath), maxSocketPathLen)
	}

	binDir, err := findBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}

	major, err := serverMajorVersion(ctx, binDir)
	if err != nil {
		return nil, err
	}

	owner, err := lookupServerUser()
	if err != nil {
		return nil, err
	}

	if err := prepareDataDir(dataDir, owner, logger); err != nil {
		return nil, err
	}

	c := &Cluster{
		dataDir: dataDir,
		pgData:  filepath.Join(dataDir, "pg"+major),
		logPath: filepath.Join(dataDir, logFileName),
		logger:  logger,
		exited:  make(chan struct{}),
	}

	if opts.StandbyOf != "" {
		err = c.baseBackup(ctx, binDir, owner, opts.StandbyOf)
	} else {
		err = c.initdb(ctx, binDir, owner)
	}
	if err != nil {
		return nil, err
	}

	if err := c.checkNotRunning(); err != nil {
		return nil, err
	}

	if err := c.writeAuthConfig(owner, opts.Roles); err != nil {
		return nil, err
	}

	startedAt := time.Now()
	if err := c.start(binDir, owner, opts.Fast); err != nil {
		return nil, err
	}

	if err := c.waitReady(ctx); err != nil {
		// The error already tells what went wrong; stopping only makes sure
		// that a server that did not become ready does not linger.
		c.Stop()
		return nil, err
	}

	logger.Info("PostgreSQL is ready",
		slog.String("data_dir", c.pgData),
		slog.Int("pid", c.cmd.Process.Pid),
		slog.Duration("startup", time.Since(startedAt)),
	)

	return c, nil
}

// ErrInUse: another process runs the cluster of the data folder.
var ErrInUse = errors.New("pgembed: the cluster is in use")

// URL returns a lib/pq connection URL for the given database over the
// cluster's unix socket.
func (c *Cluster) URL(database string) string { return SocketURL(c.dataDir, database) }

// SocketURL returns the URL of database in the cluster of dataDir, over
// its unix socket: the URL of a cluster another process started there.
func SocketURL(dataDir, database string) string {
	query := url.Values{
		"host":    {dataDir},
		"port":    {strconv.Itoa(socketPort)},
		"sslmode": {"disable"},
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Path:     "/" + database,
		RawQuery: query.Encode(),
	}
	return u.String()
}

// Stop asks the server for a fast shutdown and waits for it to exit.
// It is safe to call more than once.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		c.stopErr = c.stop()
	})
	return c.stopErr
}

func (c *Cluster) stop() error {
	c.logger.Info("Stopping PostgreSQL", slog.String("data_dir", c.pgData))

	if err := c.cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("pgembed: unable to stop postgres: %w", err)
	}

	select {
	case <-c.exited:
	case <-time.After(stopTimeout):
		c.logger.Warn("PostgreSQL did not shut down in time, forcing an immediate shutdown",
			slog.Duration("timeout", stopTimeout),
		)
		if err := c.cmd.Process.Signal(syscall.SIGQUIT); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("pgembed: unable to stop postgres: %w", err)
		}
		<-c.exited
	}

	if c.exitErr != nil {
		return fmt.Errorf("pgembed: postgres exited with an error: %w\n%s", c.exitErr, c.logTail())
	}
	return nil
}

// baseBackup copies the running cluster of the data folder primaryDir into
// this cluster's, as its standby, unless this cluster exists.
func (c *Cluster) baseBackup(ctx context.Context, binDir string, owner *serverUser, primaryDir string) error {
	if _, err := os.Stat(filepath.Join(c.pgData, "PG_VERSION")); err == nil {
		return nil
	}
	primaryDir, err := filepath.Abs(primaryDir)
	if err != nil {
		return fmt.Errorf("pgembed: unable to resolve the primary's data directory: %w", err)
	}
	c.logger.Info("Copying a PostgreSQL cluster as its standby", slog.String("primary", primaryDir), slog.String("data_dir", c.pgData))
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "pg_basebackup"),
		"-h", primaryDir, "-p", strconv.Itoa(socketPort), "-U", "postgres",
		"-D", c.pgData, "--write-recovery-conf", "--wal-method=stream", "--no-sync", "--checkpoint=fast",
	)
	cmd.Dir = c.dataDir
	cmd.SysProcAttr = owner.sysProcAttr()
	cmd.WaitDelay = 10 * time.Second
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgembed: unable to copy the cluster of %s into %s: %w\n%s", primaryDir, c.pgData, err, lastLines(output, logTailLines))
	}
	return nil
}

func (c *Cluster) initdb(ctx context.Context, binDir string, owner *serverUser) error {
	_, err := os.Stat(filepath.Join(c.pgData, "PG_VERSION"))
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("pgembed: unable to inspect the cluster: %w", err)
	}

	c.logger.Info("Initialising a new PostgreSQL cluster", slog.String("data_dir", c.pgData))

	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"),
		"-D", c.pgData,
		"--auth-local=peer",
		"--auth-host=reject",
		"-U", "postgres",
		"--no-sync",
		"-E", "UTF8",
		"--locale=C",
	)
	cmd.Dir = c.dataDir
	cmd.SysProcAttr = owner.sysProcAttr()
	cmd.Cancel = func() error {
		return cmd.Process.Signal(os.Interrupt)
	}
	cmd.WaitDelay = 10 * time.Second

	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgembed: unable to initialise the cluster in %s: %w\n%s", c.pgData, err, lastLines(output, logTailLines))
	}
	return nil
}

// authMap is the name of the map of pg_ident.conf that pg_hba.conf names.
const authMap = "ipam"

// hbaConf is the whole of pg_hba.conf: the unix socket alone (the server
// listens on no TCP address), by peer authentication through authMap, for
// the databases and for replication (pg_basebackup and a standby's
// stream). A local user the map does not name, or a role it does not map
// that user to, is refused.
const hbaConf = `# Written by pivirt-ipam (internal/pgembed) at every start: edits are lost.
# The unix socket only, by peer authentication: the local users of the map
# "ipam" (pg_ident.conf) log in as the roles it maps them to, and no one else.
local all         all peer map=` + authMap + `
local replication all peer map=` + authMap + `
`

// writeAuthConfig writes the cluster's pg_hba.conf and pg_ident.conf: the
// user running this process and the one PostgreSQL runs as (its
// pg_basebackup and standby's stream, PgBouncer started by the
// pgbouncer package) may log in as postgres and as each of roles. A
// cluster made before (initdb's trust for every local user) is brought
// to this at its next start.
func (c *Cluster) writeAuthConfig(owner *serverUser, roles []string) error {
	me, err := user.Current()
	if err != nil {
		return fmt.Errorf("pgembed: unable to name the user running this process, whom the socket's peer authentication must know: %w", err)
	}
	users := []string{me.Username}
	if owner != nil && owner.name != me.Username {
		users = append(users, owner.name)
	}
	var ident strings.Builder
	ident.WriteString("# Written by pivirt-ipam (internal/pgembed) at every start: edits are lost.\n# MAPNAME SYSTEM-USERNAME DATABASE-USERNAME\n")
	for _, u := range users {
		for _, role := range append([]string{"postgres"}, roles...) {
			fmt.Fprintf(&ident, "%s %s %s\n", authMap, quoteIdent(u), quoteIdent(role))
		}
	}
	for name, content := range map[string]string{"pg_hba.conf": hbaConf, "pg_ident.conf": ident.String()} {
		path := filepath.Join(c.pgData, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			return fmt.Errorf("pgembed: unable to write %s: %w", path, err)
		}
		if owner != nil {
			if err := os.Chown(path, int(owner.uid), int(owner.gid)); err != nil {
				return fmt.Errorf("pgembed: unable to give %s to the %s user: %w", path, owner.name, err)
			}
		}
	}
	return nil
}

// quoteIdent writes a user or role name as a field of pg_ident.conf.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// checkNotRunning refuses to start when a postmaster from an earlier run
// still holds the cluster; that process belongs to someone else.
func (c *Cluster) checkNotRunning() error {
	data, err := os.ReadFile(filepath.Join(c.pgData, "postmaster.pid"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgembed: unable to read the postmaster lock file: %w", err)
	}

	firstLine, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(firstLine))
	if err != nil || pid == 0 {
		// Let postgres judge a malformed lock file.
		return nil
	}
	if pid < 0 {
		// A standalone backend writes its PID negated.
		pid = -pid
	}
	if pid == os.Getpid() {
		// A stale lock file whose PID was reused by this process, as happens in containers.
		return nil
	}

	if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("pgembed: the cluster in %s is in use by another postmaster (PID %d): stop that process first: %w", c.pgData, pid, ErrInUse)
	}
	return nil
}

func (c *Cluster) start(binDir string, owner *serverUser, fast bool) error {
	logFile, err := os.OpenFile(c.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("pgembed: unable to open the log file: %w", err)
	}
	defer logFile.Close()

	info, err := logFile.Stat()
	if err != nil {
		return fmt.Errorf("pgembed: unable to open the log file: %w", err)
	}
	c.logOffset = info.Size()

	args := []string{
		"-D", c.pgData,
		"-k", c.dataDir,
		"-p", strconv.Itoa(socketPort),
		"-c", "listen_addresses=",
		"-c", "max_connections=200",
	}
	if fast {
		args = append(args,
			"-c", "fsync=off",
			"-c", "synchronous_commit=off",
			"-c", "full_page_writes=off",
		)
	}

	cmd := exec.Command(filepath.Join(binDir, "postgres"), args...)
	cmd.Dir = c.dataDir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = owner.sysProcAttr()

	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgembed: unable to start postgres: %w", err)
	}
	c.cmd = cmd

	go func() {
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()

	return nil
}

// waitReady polls the server like pg_isready until it accepts a connection.
func (c *Cluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()

	connector, err := pq.NewConnector(c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("pgembed: unable to start postgres: %w", err)
	}

	ticker := time.NewTicker(20 * time.Millisecond)
	defer ticker.Stop()

	for {
		conn, err := connector.Connect(ctx)
		if err == nil {
			return conn.Close()
		}

		select {
		case <-c.exited:
			return fmt.Errorf("pgembed: unable to start postgres: %w\n%s", c.exitErr, c.logTail())
		case <-ctx.Done():
			return fmt.Errorf("pgembed: unable to start postgres: %w (last connection error: %v)\n%s", ctx.Err(), err, c.logTail())
		case <-ticker.C:
		}
	}
}

// logTail returns the last lines postgres logged since this run started.
func (c *Cluster) logTail() string {
	data, err := os.ReadFile(c.logPath)
	if err != nil {
		return ""
	}
	if c.logOffset <= int64(len(data)) {
		data = data[c.logOffset:]
	}
	return lastLines(data, logTailLines)
}

func lastLines(data []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// findBinDir returns the folder holding the postgres and initdb binaries.
func findBinDir(binDir string) (string, error) {
	if binDir != "" {
		if !hasServerBinaries(binDir) {
			return "", fmt.Errorf("pgembed: no PostgreSQL server binaries (postgres, initdb) in %s", binDir)
		}
		return binDir, nil
	}

	var candidates []string
	if output, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(output)))
	}

	installed, err := filepath.Glob("/usr/lib/postgresql/*/bin")
	if err != nil {
		return "", fmt.Errorf("pgembed: unable to look for PostgreSQL: %w", err)
	}
	slices.SortFunc(installed, func(a, b string) int {
		return majorOf(b) - majorOf(a)
	})
	candidates = append(candidates, installed...)

	for _, candidate := range candidates {
		if hasServerBinaries(candidate) {
			return candidate, nil
		}
	}
	return "", errors.New("pgembed: PostgreSQL server binaries not found: install the PostgreSQL server (e.g. apt-get install postgresql-15)")
}

func hasServerBinaries(binDir string) bool {
	for _, name := range []string{"postgres", "initdb"} {
		info, err := os.Stat(filepath.Join(binDir, name))
		if err != nil || info.IsDir() {
			return false
		}
	}
	return true
}

// majorOf extracts the major version from a /usr/lib/postgresql/NN/bin path.
func majorOf(binDir string) int {
	version := filepath.Base(filepath.Dir(binDir))
	major, _, _ := strings.Cut(version, ".")
	n, _ := strconv.Atoi(major)
	return n
}

func serverMajorVersion(ctx context.Context, binDir string) (string, error) {
	output, err := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("pgembed: unable to run postgres --version: %w", err)
	}
	match := versionPattern.FindSubmatch(output)
	if match == nil {
		return "", fmt.Errorf("pgembed: unexpected postgres --version output: %q", output)
	}
	return string(match[1]), nil
}

// serverUser is the account that owns and runs the cluster when this process
// runs as root, since PostgreSQL refuses to run as root. It is nil otherwise.
type serverUser struct {
	name   string
	uid    uint32
	gid    uint32
	groups []uint32
}

func lookupServerUser() (*serverUser, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}

	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgembed: PostgreSQL cannot run as root and the postgres user is missing: %w", err)
	}

	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pgembed: invalid uid for the postgres user: %w", err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("pgembed: invalid gid for the postgres user: %w", err)
	}

	groupIDs, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("pgembed: unable to list the groups of the postgres user: %w", err)
	}
	groups := make([]uint32, 0, len(groupIDs))
	for _, groupID := range groupIDs {
		id, err := strconv.ParseUint(groupID, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("pgembed: invalid group id for the postgres user: %w", err)
		}
		groups = append(groups, uint32(id))
	}

	return &serverUser{name: u.Username, uid: uint32(uid), gid: uint32(gid), groups: groups}, nil
}

// sysProcAttr puts the child in its own process group, so that Ctrl-C on the
// terminal does not reach it before the parent has drained it, and makes the
// kernel send it SIGINT (fast shutdown) if the parent dies, so that it never
// outlives the parent.
func (u *serverUser) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{
		Setpgid:   true,
		Pdeathsig: syscall.SIGINT,
	}
	if u != nil {
		attr.Credential = &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: u.groups}
	}
	return attr
}

// checkDirOwner refuses a data directory (described by info) that belongs
// to neither this process's user nor the one PostgreSQL runs as (owner,
// nil when it is this process's), naming its owner and what to do.
func checkDirOwner(dataDir string, info fs.FileInfo, owner *serverUser) error {
	stat, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	me := uint32(os.Geteuid())
	if stat.Uid == me || owner != nil && stat.Uid == owner.uid {
		return nil
	}
	runs := userName(me)
	if owner != nil {
		runs = owner.name
	}
	return fmt.Errorf("pgembed: the data directory %s belongs to %s, but PostgreSQL runs as %s here: its owner could read the cluster and reach its socket. Give it to %s (as root: chown -R %s %s) or choose another data directory",
		dataDir, userName(stat.Uid), runs, runs, runs, dataDir)
}

// userName is the name of the user of uid, or "uid N".
func userName(uid uint32) string {
	if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil {
		return u.Username
	}
	return fmt.Sprintf("uid %d", uid)
}

// canTraverse reports whether the user may enter the folder described by info.
func (u *serverUser) canTraverse(info fs.FileInfo) bool {
	stat, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	perm := info.Mode().Perm()
	switch {
	case stat.Uid == u.uid:
		return perm&0o100 != 0
	case stat.Gid == u.gid || slices.Contains(u.groups, stat.Gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// PrepareDir creates dir for a helper process of PostgreSQL's that, as the
// server, may not run as root (PgBouncer), and returns the attributes to
// start it with: as the postgres user when this process is root (who then
// owns dir), in a process group of its own, sent SIGINT if this process
// dies.
func PrepareDir(dir string) (*syscall.SysProcAttr, error) {
	owner, err := lookupServerUser()
	if err != nil {
		return nil, err
	}
	if err := prepareDataDir(dir, owner, slog.Default()); err != nil {
		return nil, err
	}
	return owner.sysProcAttr(), nil
}

// prepareDataDir creates the data directory and, when running as root, hands
// it over to the postgres user after checking that this user can reach it.
// One that exists must belong to this process's user or to the one
// PostgreSQL runs as: anyone else who owns it may read the cluster and
// reach its socket. It is made 0700 if others may enter it (as systemd's
// StateDirectory= and install -d create them, 0755), and the log says so.
func prepareDataDir(dataDir string, owner *serverUser, logger *slog.Logger) error {
	if err := os.MkdirAll(filepath.Dir(dataDir), 0o755); err != nil {
		return fmt.Errorf("pgembed: unable to create the data directory: %w", err)
	}
	if err := os.Mkdir(dataDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("pgembed: unable to create the data directory: %w", err)
	}

	info, err := os.Stat(dataDir)
	if err != nil {
		return fmt.Errorf("pgembed: unable to create the data directory: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("pgembed: the data directory %s is not a directory", dataDir)
	}

	if err := checkDirOwner(dataDir, info, owner); err != nil {
		return err
	}
	if owner != nil {
		if err := os.Chown(dataDir, int(owner.uid), int(owner.gid)); err != nil {
			return fmt.Errorf("pgembed: unable to give the data directory to the %s user: %w", owner.name, err)
		}
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		if err := os.Chmod(dataDir, 0o700); err != nil {
			return fmt.Errorf("pgembed: the data directory %s is open to other users (mode %04o) and could not be made 0700: %w", dataDir, perm, err)
		}
		logger.Warn("The data directory was open to other users: made it 0700, so that only PostgreSQL's user reaches the cluster and its socket",
			slog.String("data_dir", dataDir), slog.String("mode_was", fmt.Sprintf("%04o", perm)))
	}

	if owner == nil {
		return nil
	}

	for dir := filepath.Dir(dataDir); ; dir = filepath.Dir(dir) {
		info, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("pgembed: unable to inspect %s: %w", dir, err)
		}
		if !owner.canTraverse(info) {
			return fmt.Errorf("pgembed: the %s user cannot reach the data directory %s because it may not enter %s: use a --data-dir it can reach, such as /var/tmp/ipam", owner.name, dataDir, dir)
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}
