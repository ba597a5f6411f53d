package e2e

import (
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// TestGraphiQL opens /graphql as a signed-in operator: GraphiQL loads from
// the server's own files under the console's Content-Security-Policy,
// reads the schema, and runs a query typed in its editor with the
// console's session.
func TestGraphiQL(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	page := newPage(t)
	var mu sync.Mutex
	var problems []string
	page.OnConsole(func(m playwright.ConsoleMessage) {
		if m.Type() == "error" {
			mu.Lock()
			problems = append(problems, m.Text()+" ("+m.Location().URL+")")
			mu.Unlock()
		}
	})
	page.OnPageError(func(err error) {
		mu.Lock()
		problems = append(problems, err.Error())
		mu.Unlock()
	})
	requests := watchRequests(page)
	page.OnResponse(func(r playwright.Response) {
		if r.Status() >= 400 {
			mu.Lock()
			problems = append(problems, r.Request().Method()+" "+r.URL()+": "+r.StatusText())
			mu.Unlock()
		}
	})
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	if _, err := page.Goto(srv.URL + "/graphql"); err != nil {
		t.Fatal(err)
	}
	expect := playwright.NewPlaywrightAssertions(patience)
	editor := page.Locator(".graphiql-query-editor .CodeMirror")
	if err := expect.Locator(editor).ToBeVisible(); err != nil {
		t.Fatalf("GraphiQL's editor did not show: %v", err)
	}
	// The schema, read by introspection, is what the documentation lists.
	click(t, page, `[aria-label="Show Documentation Explorer"]`)
	if err := expect.Locator(page.Locator(".graphiql-doc-explorer")).ToContainText("Mutation"); err != nil {
		t.Fatalf("the documentation explorer does not list the schema's roots: %v", err)
	}
	click(t, page, ".graphiql-query-editor .CodeMirror-code")
	if err := page.Keyboard().Press("Control+A"); err != nil {
		t.Fatal(err)
	}
	if err := page.Keyboard().Press("Delete"); err != nil {
		t.Fatal(err)
	}
	// The editor closes each brace it opens and types over it after.
	if err := page.Keyboard().Type(`{ pools(kind: PUBLIC) { name cidr } }`); err != nil {
		t.Fatal(err)
	}
	if err := page.Keyboard().Press("Escape"); err != nil {
		t.Fatal(err)
	}
	click(t, page, ".graphiql-execute-button")
	response := page.Locator(".graphiql-response")
	if err := expect.Locator(response).ToContainText(`"cidr": "203.0.113.0/24"`); err != nil {
		text, _ := response.TextContent()
		t.Fatalf("the query's answer is not shown: %v\n%s", err, text)
	}
	screenshot(t, page, "graphiql")
	for _, r := range requests() {
		if _, url, _ := strings.Cut(r, " "); !strings.HasPrefix(url, srv.URL+"/") {
			t.Errorf("the page asked another origin: %s", r)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("the browser reported: %.300s", p)
	}
}
