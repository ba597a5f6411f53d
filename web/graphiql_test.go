package web

import (
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// browserAccept is the Accept header of a browser's navigation.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

var (
	scriptTag     = regexp.MustCompile(`<script[^>]*>`)
	stylesheetTag = regexp.MustCompile(`<link rel="stylesheet"[^>]*>`)
	attribute     = regexp.MustCompile(`(src|href|integrity)="([^"]*)"`)
)

// TestGraphiQLPage checks that a browser's GET /graphql opens GraphiQL for
// a signed-in user: its files and React's from static/, each with the
// integrity of the file served, and no inline script under the CSP.
func TestGraphiQLPage(t *testing.T) {
	t.Parallel()
	h, session := signedIn(t)
	session.Set("Accept", browserAccept)
	res := do(t, h, http.MethodGet, "/graphql", session)
	page := string(readBody(t, res))
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /graphql from a browser = %d %s:\n%.500s", res.StatusCode, res.Header.Get("Content-Type"), page)
	}
	if csp := res.Header.Get("Content-Security-Policy"); csp != contentSecurityPolicy {
		t.Errorf("Content-Security-Policy = %q, want the console's", csp)
	}
	if !strings.Contains(page, `data-testid="graphiql" data-url="/graphql"`) {
		t.Errorf("the page has no GraphiQL root:\n%s", page)
	}
	tags := append(scriptTag.FindAllString(page, -1), stylesheetTag.FindAllString(page, -1)...)
	vendored := 0
	for _, tag := range tags {
		attrs := map[string]string{}
		for _, m := range attribute.FindAllStringSubmatch(tag, -1) {
			attrs[m[1]] = m[2]
		}
		url := attrs["src"] + attrs["href"]
		if !strings.HasPrefix(url, "/static/") || !strings.Contains(url, "?v=") {
			t.Errorf("%s loads %q, not a versioned file of static/", tag, url)
			continue
		}
		if !strings.HasPrefix(url, "/static/graphiql/") {
			continue
		}
		vendored++
		body := readBody(t, do(t, h, http.MethodGet, url, nil))
		sum := sha512.Sum384(body)
		if want := "sha384-" + base64.StdEncoding.EncodeToString(sum[:]); attrs["integrity"] != want {
			t.Errorf("%s has integrity %q, the file served %q", tag, attrs["integrity"], want)
		}
	}
	if vendored != 4 {
		t.Errorf("the page loads %d vendored files, want GraphiQL's script and stylesheet, React and ReactDOM:\n%s", vendored, page)
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, " style=") {
		t.Errorf("the page has an inline script or style, which the CSP refuses:\n%s", page)
	}
}

// TestGraphQLGet checks GET /graphql for the others: an anonymous browser
// is sent to sign in and back, and an API client gets the API's answer,
// as before GraphiQL (use POST).
func TestGraphQLGet(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	res := do(t, h, http.MethodGet, "/graphql", http.Header{"Accept": {browserAccept}})
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != "/login?next=%2Fgraphql" {
		t.Errorf("GET /graphql from an anonymous browser = %d to %q, want 303 to /login?next=%%2Fgraphql", res.StatusCode, loc)
	}
	for _, accept := range []string{"", "*/*", "application/json", "application/graphql-response+json, application/json;q=0.9", "text/html;q=0"} {
		res := do(t, h, http.MethodGet, "/graphql?query=%7B%20pools%20%7B%20name%20%7D%20%7D", http.Header{"Accept": {accept}})
		var answer struct {
			Errors []struct {
				Message    string
				Extensions struct{ Code string }
			}
		}
		body := readBody(t, res)
		if err := json.Unmarshal(body, &answer); err != nil || res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != http.MethodPost ||
			len(answer.Errors) != 1 || !strings.Contains(answer.Errors[0].Message, "use POST") {
			t.Errorf("GET /graphql?query=… with Accept %q = %d %s, want the API's 405", accept, res.StatusCode, body)
		}
	}
}

func TestAcceptsHTML(t *testing.T) {
	for header, want := range map[string]bool{
		browserAccept: true, "text/html": true, "TEXT/HTML; charset=utf-8": true, "application/json, text/html;q=0.1": true,
		"": false, "*/*": false, "text/*": false, "application/json": false, "text/html;q=0": false, "text/html;q=0.0, */*": false,
	} {
		if got := acceptsHTML(header); got != want {
			t.Errorf("acceptsHTML(%q) = %v, want %v", header, got, want)
		}
	}
}
