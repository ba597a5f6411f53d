package web

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// An htmlPage is a parsed page, read by data-testid as the e2e tests and
// users' scripts read it.
type htmlPage struct{ root *html.Node }

func parsePage(t *testing.T, page string) htmlPage {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("parsing the page: %v", err)
	}
	return htmlPage{root}
}

// all returns the elements with data-testid id, in document order.
func (p htmlPage) all(id string) []*html.Node {
	var out []*html.Node
	for n := range p.root.Descendants() {
		if n.Type == html.ElementNode && attrOf(n, "data-testid") == id {
			out = append(out, n)
		}
	}
	return out
}

// text returns the text of the first element with data-testid id, spaces
// collapsed, or "" when there is none.
func (p htmlPage) text(id string) string {
	found := p.all(id)
	if len(found) == 0 {
		return ""
	}
	return textOf(found[0])
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// nodeAttr returns the element's attribute key, and whether it has it.
func nodeAttr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// attrOf returns the element's attribute key, or "".
func attrOf(n *html.Node, key string) string {
	v, _ := nodeAttr(n, key)
	return v
}

// options returns the values of a select's options, and the selected one.
func options(sel *html.Node) (values []string, selected string) {
	for n := range sel.Descendants() {
		if n.Type == html.ElementNode && n.Data == "option" {
			values = append(values, attrOf(n, "value"))
			if _, ok := nodeAttr(n, "selected"); ok {
				selected = attrOf(n, "value")
			}
		}
	}
	return values, selected
}

func TestCreateSubnetBySize(t *testing.T) {
	c := newConsoleWithData(t)
	status, body := c.get(t, "/vpcs/acme/prod/main", c.acme)
	if status != 200 {
		t.Fatalf("GET /vpcs/acme/prod/main = %d", status)
	}
	page := parsePage(t, body)
	sizes := page.all("subnet-size")
	if len(sizes) != 1 || attrOf(sizes[0], "name") != "prefixLength" {
		t.Fatalf("the create-subnet form has %d size selects, want one named prefixLength", len(sizes))
	}
	values, selected := options(sizes[0])
	if want := ",16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"; strings.Join(values, ",") != want || selected != "" {
		t.Errorf("the size select offers %q with %q selected, want %q with none", strings.Join(values, ","), selected, want)
	}
	form := page.all("form-create-subnet")
	if len(form) != 1 || attrOf(form[0], "method") != "post" {
		t.Fatal("the page has no create-subnet form posting without JavaScript")
	}
	if got := len(htmlPage{form[0]}.all("predicted-subnet")); got != 1 {
		t.Errorf("the create-subnet form has %d predicted-subnet elements, want 1", got)
	}

	post := func(form url.Values) (int, htmlPage) {
		t.Helper()
		form.Set("action", "create-subnet")
		status, _, body := c.post(t, "/vpcs/acme/prod/main", form, c.acme)
		return status, parsePage(t, body)
	}
	// As predicted: the lowest free /24 is below web's 10.42.1.0/24.
	status, page = post(url.Values{"name": {"db"}, "prefixLength": {"24"}, "predicted": {"10.42.0.0/24"}})
	if got := page.text("claim-result"); status != 200 || got != "Created subnet db: 10.42.0.0/24 with gateway 10.42.0.1 — as predicted." {
		t.Errorf("creating a /24 as predicted = %d %q", status, got)
	}
	// Someone took the predicted block first: the page says so.
	status, page = post(url.Values{"name": {"cache"}, "prefixLength": {"/24"}, "predicted": {"10.42.0.0/24"}})
	if status != 200 || page.text("claimed-address") != "10.42.2.0/24" ||
		!strings.Contains(page.text("claim-differs"), "the page predicted 10.42.0.0/24, but someone else claimed it first") {
		t.Errorf("creating a /24 predicted at a taken block = %d %q %q", status, page.text("claimed-address"), page.text("claim-differs"))
	}
	// A CIDR works as before.
	status, page = post(url.Values{"name": {"ops"}, "cidr": {"10.42.3.0/26"}, "gateway": {"10.42.3.62"}, "predicted": {"10.42.3.0/26"}})
	if status != 200 || page.text("claimed-address") != "10.42.3.0/26" || len(page.all("claim-as-predicted")) != 1 || !strings.Contains(page.text("claim-result"), "with gateway 10.42.3.62") {
		t.Errorf("creating a subnet by CIDR = %d %q", status, page.text("claim-result"))
	}
	// The page now carries every subnet for the next prediction.
	dataNodes := page.all("claim-data")
	if len(dataNodes) != 1 {
		t.Fatalf("the page has %d claim-data elements, want 1", len(dataNodes))
	}
	var data claimData
	if err := json.Unmarshal([]byte(attrOf(dataNodes[0], "data-claims")), &data); err != nil {
		t.Fatal(err)
	}
	if data.VPC != "10.42.0.0/16" || data.VPCName != "main" || strings.Join(data.Siblings, " ") != "10.42.0.0/24 10.42.1.0/24 10.42.2.0/24 10.42.3.0/26" {
		t.Errorf("the page's claim data is %s %s %v", data.VPC, data.VPCName, data.Siblings)
	}

	refusals := []struct {
		form url.Values
		want string
	}{
		{url.Values{"name": {"x"}, "prefixLength": {"24"}, "cidr": {"10.42.9.0/24"}}, "cidr and prefixLength both name the subnet's prefix: give one of them"},
		{url.Values{"name": {"x"}}, "cidr or prefixLength is required: the subnet's prefix, or its length to take the lowest free one"},
		{url.Values{"name": {"x"}, "prefixLength": {"big"}}, `prefixLength "big" is not a prefix length such as 24`},
		{url.Values{"name": {"x"}, "prefixLength": {"15"}}, "prefixLength 15 is out of range for VPC main's 10.42.0.0/16: 16 to 31"},
		{url.Values{"name": {"x"}, "prefixLength": {"16"}}, "vpc main has no free /16 in 10.42.0.0/16"},
	}
	for _, tt := range refusals {
		status, page := post(tt.form)
		if status != 422 || page.text("claim-error") != tt.want {
			t.Errorf("POST %v = %d %q, want 422 %q", tt.form, status, page.text("claim-error"), tt.want)
		}
		// What was chosen is kept.
		values, selected := options(page.all("subnet-size")[0])
		if want := tt.form.Get("prefixLength"); slices.Contains(values, want) && selected != want {
			t.Errorf("after POST %v the size select has %q selected, want %q", tt.form, selected, want)
		}
	}
}

func TestVPCPageDefaultRoute(t *testing.T) {
	c := newConsoleWithData(t)
	ctx := t.Context()
	if _, err := c.svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "public-zone-n", CIDR: "198.51.100.0/24", Zone: "zone-n"}); err != nil {
		t.Fatal(err)
	}
	for _, in := range []ipam.CreateVPCInput{
		{Namespace: "acme/prod", Name: "dark", CIDR: "10.50.0.0/16", Zone: "zone-n"},
		{Namespace: "acme/prod", Name: "island", CIDR: "10.60.0.0/16"},
	} {
		if _, err := c.svc.CreateVPC(ctx, auth.System, in); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		vpc, router, route string
	}{
		{"main", "203.0.113.2 from public-zone-a in zone-a", "203.0.113.1"},
		{"dark", "198.51.100.1 from public-zone-n in zone-n", "no default route: pool public-zone-n has no gateway"},
		{"island", "none: the VPC has no zone", ""},
	}
	for _, tt := range tests {
		status, body := c.get(t, "/vpcs/acme/prod/"+tt.vpc, c.acme)
		page := parsePage(t, body)
		if status != 200 || page.text("router") != tt.router || page.text("default-route") != tt.route || len(page.all("default-route")) != 1 {
			t.Errorf("VPC %s: %d, router %q, default route %q; want router %q, default route %q",
				tt.vpc, status, page.text("router"), page.text("default-route"), tt.router, tt.route)
		}
	}
}
