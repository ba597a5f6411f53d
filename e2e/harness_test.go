// Package e2e drives the console in Debian's Chromium through playwright-go,
// against a real ipam server on a real PostgreSQL.
package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// chromiumArgs start Chromium headless on a machine with no network.
var chromiumArgs = []string{
	"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
}

var (
	ipamBinary string
	browser    playwright.Browser
)

func TestMain(m *testing.M) {
	os.Exit(pgtest.Run(func() int {
		cleanup, err := setup()
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
		defer cleanup()
		return m.Run()
	}))
}

// setup builds the server and starts the browser once for every test.
func setup() (func(), error) {
	if _, err := os.Stat("../static/wasm/preview.wasm"); err != nil {
		return nil, fmt.Errorf("the preview is not built: run make wasm (make test does it)")
	}
	dir, err := os.MkdirTemp("", "ipam-e2e-")
	if err != nil {
		return nil, err
	}
	ipamBinary = filepath.Join(dir, "ipam")
	if out, err := exec.Command("go", "build", "-o", ipamBinary, "../cmd/ipam").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("building ipam: %v\n%s", err, out)
	}
	if os.Getenv("PLAYWRIGHT_DRIVER_PATH") == "" {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("PLAYWRIGHT_DRIVER_PATH is not set: run the tests with make test, or eval \"$(scripts/setup.sh --print-env)\" first")
	}
	axe, err := os.ReadFile(filepath.Join(os.Getenv("AXE_CORE_PATH"), "axe.min.js"))
	if os.Getenv("AXE_CORE_PATH") == "" || err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("axe-core is not installed (AXE_CORE_PATH=%q): run the tests with make test, or eval \"$(scripts/setup.sh --print-env)\" first", os.Getenv("AXE_CORE_PATH"))
	}
	axeSource = string(axe)
	chromium := os.Getenv("CHROMIUM_PATH")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("chromium is not installed at %s: run scripts/setup.sh (apt-get install chromium)", chromium)
	}
	pw, err := playwright.Run(&playwright.RunOptions{SkipInstallBrowsers: true, Stdout: io.Discard})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting the playwright driver: %w", err)
	}
	browser, err = pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(chromium),
		Headless:       playwright.Bool(true),
		Args:           chromiumArgs,
	})
	if err != nil {
		pw.Stop()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("launching %s: %w", chromium, err)
	}
	return func() {
		browser.Close()
		pw.Stop()
		os.RemoveAll(dir)
	}, nil
}

// A server is an ipam serve process of one test, on a database of its own.
type server struct {
	// URL is the base URL, such as http://127.0.0.1:41234.
	URL string
	// DatabaseURL is the server's database, for ipam user add and the like.
	DatabaseURL string
	// AdminPassword is the password of the operator admin, which ipam serve
	// creates and prints at its first start.
	AdminPassword string
	// Passwords are the passwords ipam serve printed, by user: admin's,
	// and with --demo the demo tenants'.
	Passwords map[string]string
}

// startServer runs ipam serve on a fresh database. The server is stopped
// with SIGINT when the test ends.
func startServer(t *testing.T) server {
	t.Helper()
	return startServerOn(t, pgtest.NewURL(t))
}

// startServerOn runs ipam serve on the database of url (a fresh one, which
// the test may have filled first). The server is stopped with SIGINT when
// the test ends.
func startServerOn(t *testing.T, url string) server {
	t.Helper()
	return startServerArgs(t, url)
}

// startServerArgs runs ipam serve on the database of url with the extra
// arguments args (--demo), as startServerOn does.
func startServerArgs(t *testing.T, url string, args ...string) server {
	t.Helper()
	srv := server{DatabaseURL: url}
	cmd := exec.Command(ipamBinary, append([]string{"serve", "--listen", "127.0.0.1:0", "--database-url", srv.DatabaseURL}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("ipam serve did not stop within 20 s of SIGINT")
		}
	})
	started := make(chan server, 1)
	go func() {
		// The sign-ins ("  admin    operator    password: …") come before
		// the line with the URL.
		passwords := map[string]string{}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if user, rest, ok := strings.Cut(line, "password: "); ok && strings.HasPrefix(line, "  ") {
				passwords[strings.Fields(user)[0]] = strings.Fields(rest)[0]
			}
			if _, rest, ok := strings.Cut(line, "serving on "); ok {
				started <- server{URL: strings.Fields(rest)[0], DatabaseURL: srv.DatabaseURL, AdminPassword: passwords[auth.AdminName], Passwords: passwords}
			}
		}
	}()
	select {
	case srv = <-started:
		if srv.AdminPassword == "" {
			t.Fatalf("ipam serve printed no password of the operator %s on a fresh database", auth.AdminName)
		}
		return srv
	case err := <-exited:
		t.Fatalf("ipam serve exited: %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("ipam serve did not start within 30 s\n%s", stderr.String())
	}
	return server{}
}

// addUser adds a user to the server's database with ipam user add, and
// returns their password.
func (s server) addUser(t *testing.T, name string, role auth.Role, namespaces ...string) string {
	t.Helper()
	password := "pw-" + rand.Text()
	args := []string{"user", "add", name, "--role", string(role), "--password-stdin", "--database-url", s.DatabaseURL}
	for _, ns := range namespaces {
		args = append(args, "--namespace", ns)
	}
	cmd := exec.Command(ipamBinary, args...)
	cmd.Stdin = strings.NewReader(password + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ipam user add %s: %v\n%s", name, err, out)
	}
	return password
}

// signIn signs user in on the sign-in form of base and waits for the page
// it leads to.
func signIn(t *testing.T, page playwright.Page, base, user, password string) {
	t.Helper()
	if _, err := page.Goto(base + "/login"); err != nil {
		t.Fatal(err)
	}
	if err := page.GetByLabel("User name").Fill(user); err != nil {
		t.Fatal(err)
	}
	if err := page.GetByLabel("Password").Fill(password); err != nil {
		t.Fatal(err)
	}
	if err := page.Locator("[data-testid=login-submit]").Click(); err != nil {
		t.Fatal(err)
	}
	waitForText(t, page, "user-name", user)
}

// newPage opens a page in a fresh browser context, closed with the test.
func newPage(t *testing.T) playwright.Page {
	t.Helper()
	return newPageWith(t, playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 800}})
}

// newPageWith opens a page in a fresh browser context of opts, closed
// with the test. axe-core is in each document the context opens
// (checkAccessibility), sent to the browser once.
func newPageWith(t *testing.T, opts playwright.BrowserNewContextOptions) playwright.Page {
	t.Helper()
	ctx, err := browser.NewContext(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	if err := ctx.AddInitScript(playwright.Script{Content: playwright.String(axeSource)}); err != nil {
		t.Fatal(err)
	}
	page, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	page.SetDefaultTimeout(patience)
	return page
}

// patience is how long, in milliseconds, a test waits for the browser to
// show what it expects: a bound for a machine loaded by other tests (the
// WebAssembly preview compiles in seconds there), not a speed goal.
const patience = 20000

// screenshot saves the page under e2e/screenshots (git-ignored).
func screenshot(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	if err := os.MkdirAll("screenshots", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(filepath.Join("screenshots", name+".png")), FullPage: playwright.Bool(true)}); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
	}
}

// waitForText waits until the element's text is want.
func waitForText(t *testing.T, page playwright.Page, testid, want string) {
	t.Helper()
	loc := page.Locator(fmt.Sprintf("[data-testid=%q]", testid))
	if err := playwright.NewPlaywrightAssertions(patience).Locator(loc).ToHaveText(want); err != nil {
		got, _ := loc.TextContent()
		t.Fatalf("[data-testid=%s] = %q, want %q", testid, got, want)
	}
}

// services opens the server's database and the domain on it, as
// automation would, to fill it before or while the server runs; both close
// when the test ends.
func services(t *testing.T, srv server) (*store.DB, *ipam.Service) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, srv.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc, err := ipam.New(ctx, ipam.Config{DB: db, URL: srv.DatabaseURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return db, svc
}
