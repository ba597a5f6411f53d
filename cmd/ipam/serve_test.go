package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

const (
	initdbLine   = "Initialising a new PostgreSQL cluster"
	startTimeout = time.Minute
	stopTimeout  = 20 * time.Second
)

// waitServing waits for the line announcing the server and returns its URL.
func (p *process) waitServing(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	var url string
	found := waitFor(ctx, func() bool {
		for line := range strings.Lines(p.stdout.String()) {
			if rest, ok := strings.CutPrefix(line, servingPrefix+"http://"); ok {
				url = "http://" + strings.Fields(rest)[0]
				return true
			}
		}
		select {
		case <-p.exited:
			return true
		default:
			return false
		}
	})
	if url == "" {
		state := "did not print " + servingPrefix + "… within " + startTimeout.String()
		if found {
			state = fmt.Sprintf("exited (%v) before serving", p.err)
		}
		t.Fatalf("ipam %s %s\nstdout:\n%s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), state, p.stdout, p.stderr)
	}
	return url
}

// stop sends SIGTERM and checks that the process exits 0 in time.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if code := p.wait(t, stopTimeout); code != 0 {
		t.Fatalf("ipam serve exited %d after SIGTERM, want 0\nstderr:\n%s", code, p.stderr)
	}
	t.Logf("ipam serve exited %v after SIGTERM", time.Since(began).Round(time.Millisecond))
}

// checkHealthz wants GET /healthz to answer 200.
func checkHealthz(t *testing.T, url string) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Get(url + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz = %d, want %d", res.StatusCode, http.StatusOK)
	}
}

// newDataDir returns an empty folder for the embedded PostgreSQL. As root,
// ipam hands it to the postgres user, who must be able to enter its parents.
func newDataDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if os.Geteuid() == 0 {
		for _, parent := range []string{filepath.Dir(dir), filepath.Dir(filepath.Dir(dir))} {
			if err := os.Chmod(parent, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// postmasterPID reads the PID of the postmaster running in dataDir.
func postmasterPID(t *testing.T, dataDir string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dataDir, "pg*", "postmaster.pid"))
	if err != nil || len(files) != 1 {
		t.Fatalf("no postmaster.pid in %s/pg*: %v", dataDir, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		t.Fatalf("%s starts with %q, want a PID", files[0], first)
	}
	return pid
}

// processesNaming lists the processes whose command line contains s.
func processesNaming(t *testing.T, s string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, file := range cmdlines {
		data, err := os.ReadFile(file)
		if err != nil {
			continue // the process has gone
		}
		if cmdline := strings.ReplaceAll(string(data), "\x00", " "); strings.Contains(cmdline, s) {
			found = append(found, filepath.Base(filepath.Dir(file))+": "+cmdline)
		}
	}
	return found
}

func TestServeEmbeddedPostgres(t *testing.T) {
	dataDir := newDataDir(t)
	tests := []struct {
		name       string
		wantInitdb bool
	}{
		{"first start", true},
		{"restart on the same data dir", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			began := time.Now()
			p := start(t, nil, "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir)
			url := p.waitServing(t)
			t.Logf("ipam serve was serving %v after it started", time.Since(began).Round(time.Millisecond))
			checkHealthz(t, url)
			postmaster := postmasterPID(t, dataDir)
			if running := processesNaming(t, dataDir); !slices.ContainsFunc(running, func(s string) bool {
				return strings.HasPrefix(s, strconv.Itoa(postmaster)+": ")
			}) {
				t.Fatalf("the postmaster %d is not among the processes naming %s: %q", postmaster, dataDir, running)
			}

			// A command on the same data folder uses the PostgreSQL that
			// ipam serve runs there, and leaves it running; a second
			// ipam serve is refused.
			token := mustRun(t, "", nil, "token", "create", "admin", "--data-dir", dataDir)
			if !tokenLine.MatchString(token) {
				t.Errorf("ipam token create beside ipam serve printed %q", token)
			}
			checkHealthz(t, url)
			second := start(t, nil, "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir)
			if code := second.wait(t, startTimeout); code == 0 || !strings.Contains(second.stderr.String(), "in use by another postmaster") {
				t.Errorf("a second ipam serve on %s exited %d:\n%s", dataDir, code, second.stderr)
			}

			p.stop(t)

			if left := processesNaming(t, dataDir); len(left) > 0 {
				t.Errorf("processes naming %s outlive ipam serve:\n%s", dataDir, strings.Join(left, "\n"))
			}
			if err := syscall.Kill(-postmaster, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("processes of the postmaster's group %d outlive ipam serve: kill returned %v", postmaster, err)
			}
			if got := strings.Contains(p.stderr.String(), initdbLine); got != tt.wantInitdb {
				t.Errorf("ipam serve logged %q: %v, want %v\nstderr:\n%s", initdbLine, got, tt.wantInitdb, p.stderr)
			}
		})
	}
}

func TestServeExternalDatabase(t *testing.T) {
	tests := []struct {
		name string
		env  func(url string) []string
		args func(url string) []string
	}{
		{"--database-url", func(string) []string { return nil }, func(url string) []string { return []string{"--database-url", url} }},
		{"DATABASE_URL", func(url string) []string { return []string{"DATABASE_URL=" + url} }, func(string) []string { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := pgtest.NewURL(t)
			p := start(t, tt.env(url), append([]string{"serve", "--listen", "127.0.0.1:0"}, tt.args(url)...)...)
			checkHealthz(t, p.waitServing(t))
			p.stop(t)
			if strings.Contains(p.stderr.String(), initdbLine) {
				t.Errorf("ipam serve on an external database started its own PostgreSQL\nstderr:\n%s", p.stderr)
			}
		})
	}
}

// TestCommandOnUnreachableDatabase: a command the database cannot serve
// exits 75, so that a script may run it again.
func TestCommandOnUnreachableDatabase(t *testing.T) {
	const url = "postgres://nobody@127.0.0.1:1/none?sslmode=disable"
	code, _, stderr := runIpam(t, 30*time.Second, "get", "pools", "--database-url", url)
	if code != 75 || !strings.Contains(stderr, "ipam: the database did not answer; the same command may succeed in a moment") {
		t.Errorf("ipam get pools on an unreachable database exited %d: %q; want 75 and the retry hint", code, stderr)
	}
}

func TestServeUnreachableDatabase(t *testing.T) {
	const url = "postgres://nobody@127.0.0.1:1/none?sslmode=disable"
	code, stdout, stderr := runIpam(t, 30*time.Second, "serve", "--listen", "127.0.0.1:0", "--database-url", url)
	if code == 0 {
		t.Fatalf("ipam serve --database-url %s exited 0, want an error\nstdout:\n%s", url, stdout)
	}
	if !strings.Contains(stderr, "unable to connect to the database") {
		t.Errorf("ipam serve --database-url %s wrote %q, want it to name the database problem", url, stderr)
	}
	if strings.Contains(stdout, servingPrefix) {
		t.Errorf("ipam serve --database-url %s announced it was serving: %q", url, stdout)
	}
}

// TestServeMetricsListen: --metrics-listen serves /metrics without a token;
// --listen serves it only with an operator's.
func TestServeMetricsListen(t *testing.T) {
	url := pgtest.NewURL(t)
	p := start(t, nil, "serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--database-url", url)
	console := p.waitServing(t)
	metricsURL := p.metricsURL(t)
	for _, c := range []struct {
		url    string
		status int
		want   string
	}{{metricsURL, http.StatusOK, "# TYPE ipam_claims_total counter"}, {console + "/metrics", http.StatusUnauthorized, "Bearer"}} {
		res, err := http.Get(c.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != c.status || !strings.Contains(string(body), c.want) {
			t.Errorf("GET %s = %d %.200q, want %d with %q", c.url, res.StatusCode, body, c.status, c.want)
		}
	}
	p.stop(t)
}

// metricsURL returns where p, an ipam serve started with --metrics-listen
// and serving, says its metrics are.
func (p *process) metricsURL(t *testing.T) string {
	t.Helper()
	for line := range strings.Lines(p.stdout.String()) {
		if rest, ok := strings.CutPrefix(line, metricsPrefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("ipam serve did not say where the metrics are\nstdout:\n%s", p.stdout)
	return ""
}

// metric returns the value of the metric named name (a whole line's
// first field, without labels) at url, or -1 when it is not there.
func metric(t *testing.T, url, name string) float64 {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	for line := range strings.Lines(string(body)) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == name {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatalf("metric %s: %v", name, err)
			}
			return v
		}
	}
	return -1
}

// signInsOf reads the passwords that ipam serve's output gives, by user.
func signInsOf(output string) map[string]string {
	out := map[string]string{}
	for line := range strings.Lines(output) {
		if before, after, ok := strings.Cut(line, passwordPrefix); ok && strings.HasPrefix(line, "  ") {
			out[strings.Fields(before)[0]] = strings.Fields(after)[0]
		}
	}
	return out
}

// startUpEnd returns the last n lines of what ipam serve printed and
// logged up to the line that gives its URL, and the lines that came
// after that one before it logged that it was shutting down.
func startUpEnd(t *testing.T, output string, n int) (end, after []string) {
	t.Helper()
	output, _, _ = strings.Cut(output, "shutting down")
	lines := strings.Split(output, "\n")
	serving := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, servingPrefix) })
	if serving < n-1 {
		t.Fatalf("ipam serve's output has fewer than %d lines up to %s…:\n%s", n, servingPrefix, output)
	}
	// The last line is the start of the log line that says it shuts down.
	return lines[serving-n+1 : serving+1], lines[serving+1 : len(lines)-1]
}

// TestServeStartUpEndsWithSignIns: ipam serve --demo ends its start-up
// output, standard output and error together as a terminal shows them,
// with the users to sign in as and the URL. Requests are logged at debug
// level: not by default, so that they do not scroll the sign-ins away; with
// --log-level debug, they are. The passwords printed work; at a later
// start, where they are not known, each line says how to set one.
func TestServeStartUpEndsWithSignIns(t *testing.T) {
	url := pgtest.NewURL(t)
	users := []string{"admin", "acme", "globex"}
	requests := func(base string) {
		for _, path := range []string{"/login", "/healthz", "/no-such-page"} {
			res, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
		}
	}

	first := startCombined(t, nil, "serve", "--demo", "--listen", "127.0.0.1:0", "--database-url", url)
	base := first.waitServing(t)
	requests(base)
	first.stop(t)
	output := first.stdout.String()
	end, after := startUpEnd(t, output, 5)
	if len(after) > 0 {
		t.Errorf("ipam serve logged after its start-up output, requests made:\n%s", strings.Join(after, "\n"))
	}
	if end[0] != "Sign in as:" || !strings.HasPrefix(end[4], servingPrefix+base+" ") {
		t.Errorf("ipam serve --demo's start-up output ends with\n%s\nwant \"Sign in as:\", admin, acme, globex and %s%s", strings.Join(end, "\n"), servingPrefix, base)
	}
	passwords := signInsOf(strings.Join(end, "\n"))
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for i, name := range users {
		if fields := strings.Fields(end[i+1]); len(fields) == 0 || fields[0] != name {
			t.Errorf("sign-in line %d is %q, want %s's", i+1, end[i+1], name)
		}
		if _, err := signIn(t.Context(), auth.NewService(db), name, passwords[name]); err != nil {
			t.Errorf("signing in as %s with the password printed, %q: %v", name, passwords[name], err)
		}
	}
	if strings.Contains(output, "msg=request") {
		t.Errorf("ipam serve logged requests without --log-level debug:\n%s", output)
	}

	again := startCombined(t, nil, "serve", "--demo", "--listen", "127.0.0.1:0", "--database-url", url, "--log-level", "debug")
	base = again.waitServing(t)
	requests(base)
	again.stop(t)
	output = again.stdout.String()
	end, after = startUpEnd(t, output, 5)
	if end[0] != "Sign in as:" || !strings.HasPrefix(end[4], servingPrefix+base+" ") {
		t.Errorf("the second start's output ends with\n%s\nwant \"Sign in as:\", admin, acme, globex and %s%s", strings.Join(end, "\n"), servingPrefix, base)
	}
	for i, name := range users {
		if want := "ipam user set-password " + name + " --password-stdin --database-url URL"; !strings.HasSuffix(end[i+1], want) ||
			!strings.HasPrefix(strings.TrimSpace(end[i+1]), name+" ") {
			t.Errorf("the second start's line of %s is %q, want it to end with %q", name, end[i+1], want)
		}
	}
	if !slices.ContainsFunc(after, func(l string) bool {
		return strings.Contains(l, "level=DEBUG msg=request method=GET path=/login status=200")
	}) {
		t.Errorf("ipam serve --log-level debug did not log GET /login after its start-up:\n%s", output)
	}
}
