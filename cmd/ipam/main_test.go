package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
)

// ipamBinary is the ipam command built once by TestMain.
var ipamBinary string

func TestMain(m *testing.M) {
	os.Exit(pgtest.Run(func() int {
		dir, err := os.MkdirTemp("", "ipam-cmd-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		ipamBinary = filepath.Join(dir, "ipam")
		if out, err := exec.Command("go", "build", "-o", ipamBinary, ".").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building ipam: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}))
}

// childEnv is the test's environment without DATABASE_URL, so that ipam
// uses what its command line says and nothing else.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DATABASE_URL=") {
			env = append(env, kv)
		}
	}
	return env
}

// syncBuffer collects a child's output while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// process is a running ipam.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	exited         chan struct{}
	err            error // set when exited is closed
}

// start runs ipam with args in the test's environment without DATABASE_URL,
// plus env. Should the test end with it still running, it gets SIGTERM, then
// SIGKILL 20 s later; should the test binary die, the kernel sends it
// SIGTERM.
func start(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	return startWith(t, env, &syncBuffer{}, &syncBuffer{}, args...)
}

// startCombined is start with the standard output and error in one
// buffer, p.stdout (p.stderr is the same), in the order a terminal shows
// them.
func startCombined(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	combined := &syncBuffer{}
	return startWith(t, env, combined, combined, args...)
}

// startWith is start, writing to stdout and stderr.
func startWith(t *testing.T, env []string, stdout, stderr *syncBuffer, args ...string) *process {
	t.Helper()
	p := &process{
		cmd:    exec.Command(ipamBinary, args...),
		stdout: stdout,
		stderr: stderr,
		exited: make(chan struct{}),
	}
	p.cmd.Env = append(childEnv(), env...)
	p.cmd.Stdout = p.stdout
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
			return
		default:
		}
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(20 * time.Second):
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// wait waits up to timeout for the process to exit and returns its exit
// code.
func (p *process) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		t.Fatalf("ipam %s did not exit within %v\nstdout:\n%s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), timeout, p.stdout, p.stderr)
	}
	var exitErr *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &exitErr) && exitErr.Exited():
		return exitErr.ExitCode()
	default:
		t.Fatalf("ipam %s: %v\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), p.err, p.stderr)
		return -1
	}
}

// runIpam runs ipam to completion, within timeout, and returns its exit code
// and output.
func runIpam(t *testing.T, timeout time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := start(t, nil, args...)
	code = p.wait(t, timeout)
	return code, p.stdout.String(), p.stderr.String()
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{nil, 2, "", "Usage:"},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"serve", "--nope"}, 2, "", "flag provided but not defined: -nope"},
		{[]string{"serve", "extra-arg"}, 2, "", `serve takes no arguments, got ["extra-arg"]`},
		{[]string{"serve", "--trusted-proxy", "proxy.example"}, 2, "", `invalid value "proxy.example" for flag -trusted-proxy: want a CIDR such as 10.0.0.0/24, or an address`},
		{[]string{"migrate", "--listen", "127.0.0.1:0"}, 2, "", "flag provided but not defined: -listen"},
		{[]string{"migrate", "now"}, 2, "", `migrate takes no arguments, got ["now"]`},
		{[]string{"serve", "-h"}, 0, "", "-database-url"},
		{[]string{"migrate", "--help"}, 0, "", "-data-dir"},
		{[]string{"help"}, 0, "Usage:", ""},
		{[]string{"cluster"}, 2, "", "cluster needs a subcommand"},
		{[]string{"cluster", "spin"}, 2, "", `unknown cluster subcommand "spin"`},
		{[]string{"cluster", "rotate-secret", "now"}, 2, "", `cluster rotate-secret takes no arguments, got ["now"]`},
	}
	for _, tt := range tests {
		name := "ipam " + strings.Join(tt.args, " ")
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runIpam(t, 10*time.Second, tt.args...)
			if code != tt.wantCode {
				t.Errorf("%s exited %d, want %d\nstderr:\n%s", name, code, tt.wantCode, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("%s printed %q, want it to contain %q", name, stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("%s wrote %q to stderr, want it to contain %q", name, stderr, tt.wantStderr)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := runIpam(t, 10*time.Second, "version")
	if code != 0 {
		t.Fatalf("ipam version exited %d, want 0\nstderr:\n%s", code, stderr)
	}
	if line, rest, _ := strings.Cut(stdout, "\n"); strings.TrimSpace(line) == "" || rest != "" {
		t.Errorf("ipam version printed %q, want one non-empty line", stdout)
	}
}

// waitFor polls cond every 20 ms until it holds or ctx ends.
func waitFor(ctx context.Context, cond func() bool) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	return true
}
