package reliability

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// haproxyBinary is where Debian's haproxy package installs HAProxy.
const haproxyBinary = "/usr/sbin/haproxy"

// tcpProxy is HAProxy in TCP mode in front of two PostgreSQL servers, the
// primary and its standby: it sends new connections to the primary until
// follow re-points it to the standby, as an operator (or a failover
// manager) does once the standby is promoted.
type tcpProxy struct {
	t     *testing.T
	port  int
	admin string // the runtime API's unix socket
}

// startProxy starts HAProxy on a free port of 127.0.0.1 in front of the
// unix sockets of primary and standby, and stops it when the test ends.
func startProxy(t *testing.T, primary, standby *cluster) *tcpProxy {
	t.Helper()
	if _, err := os.Stat(haproxyBinary); err != nil {
		t.Fatalf("%s is missing: install Debian's haproxy package (scripts/setup.sh does)", haproxyBinary)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	p := &tcpProxy{t: t, port: port, admin: filepath.Join(dir, "admin.sock")}
	config := fmt.Sprintf(`global
    stats socket %s mode 600 level admin

defaults
    mode tcp
    timeout connect 2s
    timeout client 1h
    timeout server 1h

listen postgres
    bind 127.0.0.1:%d
    server primary unix@%s
    server standby unix@%s disabled
`, p.admin, port, socketOf(primary), socketOf(standby))
	path := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	var output syncBuffer
	cmd := exec.Command(haproxyBinary, "-db", "-f", path)
	cmd.Stdout, cmd.Stderr = &output, &output
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if !waitUntil(10*time.Second, func() bool {
		c, err := net.Dial("tcp", p.addr())
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		t.Fatalf("HAProxy does not listen on %s after 10 s:\n%s", p.addr(), output.String())
	}
	return p
}

// socketOf is the path of c's unix socket.
func socketOf(c *cluster) string { return filepath.Join(c.dir, ".s.PGSQL.5432") }

func (p *tcpProxy) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)) }

// url is the URL of database ipam through the proxy.
func (p *tcpProxy) url() string {
	return fmt.Sprintf("postgres://postgres@%s/ipam?sslmode=disable", p.addr())
}

// follow sends new connections to the standby, and ends the sessions still
// open to the primary.
func (p *tcpProxy) follow() {
	p.t.Helper()
	c, err := net.Dial("unix", p.admin)
	if err != nil {
		p.t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "set server postgres/primary state maint; shutdown sessions server postgres/primary; set server postgres/standby state ready\n"); err != nil {
		p.t.Fatal(err)
	}
	answer, _ := io.ReadAll(c)
	if strings.TrimSpace(string(answer)) != "" {
		p.t.Fatalf("HAProxy's runtime API answered %q", answer)
	}
}
