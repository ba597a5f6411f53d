package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
)

// axeSource is axe-core's axe.min.js, read by setup from AXE_CORE_PATH.
var axeSource string

// An axeViolation is a rule of axe-core that a page breaks, with the
// elements that break it.
type axeViolation struct {
	ID      string     `json:"id"`
	Impact  string     `json:"impact"`
	Help    string     `json:"help"`
	Targets [][]string `json:"targets"`
}

// runAxe is axe.run on the whole document, of the rules given (every rule
// when none), keeping the violations of impact serious or critical; the
// result is JSON, read into axeViolation.
const runAxe = `async (rules) => {
	const options = {resultTypes: ["violations"]};
	if (rules.length > 0) options.runOnly = {type: "rule", values: rules};
	const r = await axe.run(document, options);
	return JSON.stringify(r.violations
		.filter(v => v.impact === "serious" || v.impact === "critical")
		.map(v => ({id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target)})));
}`

// checkAccessibility runs axe-core on the page as it is now and fails the
// test on each violation of impact serious or critical, with its rule,
// its impact and the elements that break it. The page's
// Content-Security-Policy allows no inline script, so axe-core is
// evaluated through the browser's debugging protocol, which the policy
// does not govern, rather than added as a script tag: by the init script
// of newPageWith's contexts, else here.
func checkAccessibility(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	checkAxeRules(t, page, name)
}

// checkAxeRules is checkAccessibility of the axe-core rules given only.
func checkAxeRules(t *testing.T, page playwright.Page, name string, rules ...string) {
	t.Helper()
	loaded, err := page.Evaluate(`() => typeof window.axe === "object"`)
	if err != nil {
		t.Fatalf("axe on %s: %v", name, err)
	}
	if loaded != true {
		if _, err := page.Evaluate(axeSource); err != nil {
			t.Fatalf("axe on %s: loading axe.min.js: %v", name, err)
		}
	}
	out, err := page.Evaluate(runAxe, append([]string{}, rules...))
	if err != nil {
		t.Fatalf("axe on %s: %v", name, err)
	}
	var violations []axeViolation
	if err := json.Unmarshal([]byte(out.(string)), &violations); err != nil {
		t.Fatalf("axe on %s: reading its result: %v", name, err)
	}
	for _, v := range violations {
		targets := make([]string, len(v.Targets))
		for i, target := range v.Targets {
			targets[i] = strings.Join(target, " ")
		}
		t.Errorf("axe on %s (%s): %s, %s: %s; on %s", name, page.URL(), v.ID, v.Impact, v.Help, strings.Join(targets, ", "))
	}
}

// visit opens path on base and runs checkAccessibility on it.
func visit(t *testing.T, page playwright.Page, base, path string) {
	t.Helper()
	if _, err := page.Goto(base + path); err != nil {
		t.Fatal(err)
	}
	checkAccessibility(t, page, path)
}

// TestAccessibilityOfTheIPPages runs axe-core on the console's pages of
// IP pools and VPCs, for an operator and a tenant, and on the sign-in and
// error pages: no violation of impact serious or critical. GraphiQL, a
// vendored third-party page, is left out (GraphiQL 3.8.3 breaks
// color-contrast, label and scrollable-region-focusable in its editors);
// the pages of kinds, branches and number pools are checked by
// TestOperatorAllocatesVLANsPerSite.
func TestAccessibilityOfTheIPPages(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")

	page := newPage(t)
	visit(t, page, srv.URL, "/login")
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)
	for _, path := range []string{"/", "/pools", "/pools/public-zone-a", "/pools/acme/prod/vpc-main", "/pools/acme/prod/vpc-main?block=10.42.1.0%2F24",
		"/vpcs", "/vpcs/acme/prod/main", "/vpcs/globex/dev/lab", "/subnets/acme/prod/main/web", "/subnets/acme/prod/main/web?span=1y", "/audit", "/no-such-page", "/pools/new"} {
		visit(t, page, srv.URL, path)
	}
	// A refused pool shows its errors by the fields.
	fill(t, page, "#pool-name", "overlapping")
	fill(t, page, "#pool-cidr", "203.0.113.128/25")
	click(t, page, "[data-testid=create-pool]")
	if err := page.Locator("[data-testid=error-cidr]").WaitFor(); err != nil {
		t.Fatal(err)
	}
	checkAccessibility(t, page, "/pools/new, refused")

	tenant := newPage(t)
	signIn(t, tenant, srv.URL, "acme", password)
	for _, path := range []string{"/", "/vpcs", "/vpcs/acme/prod/main", "/subnets/acme/prod/main/web", "/vpcs/acme/prod?tab=subnets"} {
		visit(t, tenant, srv.URL, path)
	}
}
