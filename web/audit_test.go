package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// auditSentences returns the sentences of a page's changes, listed by
// testID ("audit", "history"), each with its fields.
func auditSentences(page htmlPage, testID string) []string {
	var out []string
	for _, n := range page.all(testID + "-sentence") {
		out = append(out, strings.Join(strings.Fields(textOf(n)), " "))
	}
	return out
}

// TestAuditFilters filters the audit log by actor, action, kind of
// object, namespace and time span, as the GET form sends them: each keeps
// exactly the sentences it should, the form shows what was asked, the
// pager keeps every filter, and a time that does not read is refused at
// its field with the form as typed.
func TestAuditFilters(t *testing.T) {
	t.Parallel()
	tn := newTenancy(t)
	ctx := t.Context()
	acme := auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
	corp := auth.Actor{Name: "corp", Role: auth.Tenant, Namespaces: []string{"acme-corp/*"}}
	attach := func(a auth.Actor, ns, host string) {
		t.Helper()
		if _, err := tn.svc.AttachInterface(ctx, a, ipam.AttachInterfaceInput{Namespace: ns, VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: ns + host, Hostname: host}}); err != nil {
			t.Fatal(err)
		}
	}
	attach(acme, "acme/prod", "web-01")
	attach(corp, "acme-corp/prod", "db-01")
	// The tenancy's set-up was two days ago, acme's claim yesterday at
	// noon, corp's an hour ago.
	for _, u := range []struct {
		where string
		at    time.Time
	}{
		{`actor = 'system'`, time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)},
		{`actor = 'acme'`, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)},
		{`actor = 'corp'`, time.Date(2026, 12, 2, 8, 30, 0, 0, time.UTC)},
	} {
		if _, err := tn.db.ExecContext(ctx, `UPDATE audit_log SET at = $1 WHERE `+u.where, u.at); err != nil {
			t.Fatal(err)
		}
	}
	get := func(target string) (int, htmlPage) {
		t.Helper()
		res := tn.serve(t, http.MethodGet, target, "", tn.as("ops"))
		return res.StatusCode, parseHTML(string(readBody(t, res)))
	}
	acmeClaim := "acme attached web-01/0 to subnet web: 10.42.1.2"
	corpClaim := "corp attached db-01/0 to subnet web: 10.42.1.2"
	uplinks := []string{"system claimed 203.0.113.3 from pool public-zone-a as a router uplink of acme-corp/prod",
		"system claimed 203.0.113.2 from pool public-zone-a as a router uplink of acme/prod"}
	vpcs := []string{"system created VPC main: 10.42.0.0/16, zone zone-a, router uplink 203.0.113.3",
		"system created VPC main: 10.42.0.0/16, zone zone-a, router uplink 203.0.113.2"}
	for _, tt := range []struct {
		name  string
		query url.Values
		want  []string
	}{
		{"by actor", url.Values{"actor": {"acme"}}, []string{acmeClaim}},
		{"by action", url.Values{"action": {"allocate"}}, append([]string{corpClaim, acmeClaim}, uplinks...)},
		{"by actor and action", url.Values{"action": {"allocate"}, "actor": {"system"}}, uplinks},
		{"by kind", url.Values{"kind": {"VPC"}}, vpcs},
		{"by kind and namespace", url.Values{"kind": {"IPAllocation"}, "namespace": {"acme-corp/*"}}, []string{corpClaim}},
		{"from a time, as a datetime-local input writes it", url.Values{"since": {"2026-12-01T11:59"}}, []string{corpClaim, acmeClaim}},
		{"until a day", url.Values{"until": {"2026-12-02"}, "action": {"allocate"}}, append([]string{acmeClaim}, uplinks...)},
		{"within a span", url.Values{"since": {"2026-12-01T00:00"}, "until": {"2026-12-01T23:59"}}, []string{acmeClaim}},
		{"by an actor who changed nothing", url.Values{"actor": {"ops"}}, nil},
	} {
		status, page := get("/audit?" + tt.query.Encode())
		if got := auditSentences(page, "audit"); status != http.StatusOK || !slices.Equal(got, tt.want) {
			t.Errorf("%s: GET /audit?%s = %d with %q, want %q", tt.name, tt.query.Encode(), status, got, tt.want)
		}
		form := page.in("audit-filter")
		for name, value := range tt.query {
			var got string
			if n := form.byID("filter-" + name); n != nil && n.Data == "select" {
				_, got = options(n)
			} else if n != nil {
				got = attrOf(n, "value")
			}
			if got != value[0] {
				t.Errorf("%s: the filter %s shows %q, want %q", tt.name, name, got, value[0])
			}
		}
	}
	if _, page := get("/audit?actor=ops&kind=IPAllocation&namespace=acme%2Fprod"); page.text("no-audit") != "No change recorded by ops of kind address in acme/prod." {
		t.Errorf("an empty page says %q", page.text("no-audit"))
	}

	// The form is a GET form to /audit, each filter labelled; the kinds
	// are offered in words.
	_, page := get("/audit")
	if form := page.all("audit-filter")[0]; attrOf(form, "method") != "get" || attrOf(form, "action") != "/audit" {
		t.Errorf("the filters are not a GET form to /audit")
	}
	for _, name := range []string{"actor", "action", "kind", "namespace", "since", "until"} {
		if n := page.byID("filter-" + name); n == nil || attrOf(n, "name") != name || !page.has("filter-"+name) {
			t.Errorf("no filter %s", name)
		}
		if len(page.elements(func(n *html.Node) bool { return n.Data == "label" && attrOf(n, "for") == "filter-"+name })) != 1 {
			t.Errorf("the filter %s has no label", name)
		}
	}
	kinds := map[string]string{}
	for _, n := range page.elements(func(n *html.Node) bool {
		return n.Data == "option" && n.Parent != nil && attrOf(n.Parent, "id") == "filter-kind"
	}) {
		kinds[attrOf(n, "value")] = textOf(n)
	}
	if kinds["IPAllocation"] != "address" || kinds["CoreNumberPool"] != "number pool" || kinds["VPC"] != "VPC" || kinds[""] != "Any" {
		t.Errorf("the kinds offered are %v", kinds)
	}

	// The pager keeps the filters.
	for i := range auditPerPage {
		attach(acme, "acme/prod", fmt.Sprintf("vm-%02d", i))
	}
	_, page = get("/audit?actor=acme&action=allocate&since=2026-12-01")
	next := page.all("next-page")
	if len(next) != 1 {
		t.Fatalf("a filtered page of %d changes has no next page", auditPerPage+1)
	}
	u, err := url.Parse(attrOf(next[0], "href"))
	if err != nil || u.Path != "/audit" || u.Query().Get("actor") != "acme" || u.Query().Get("action") != "allocate" || u.Query().Get("since") != "2026-12-01" || u.Query().Get("before") == "" {
		t.Fatalf("the next page is %q, want the filters and a cursor", attrOf(next[0], "href"))
	}
	_, page = get(u.String())
	if got := auditSentences(page, "audit"); !slices.Equal(got, []string{acmeClaim}) {
		t.Errorf("the next page has %q, want %q", got, acmeClaim)
	}
	if first := page.all("first-page"); len(first) != 1 || attrOf(first[0], "href") != "/audit?action=allocate&actor=acme&since=2026-12-01" {
		t.Errorf("the first-page link does not keep the filters")
	}

	// A time that does not read is refused at its field, what was typed
	// kept.
	for _, tt := range []struct {
		query, field, want string
	}{
		{"since=yesterday&actor=acme", "since", `Write a time in UTC as 2026-12-02T14:07, or a date as 2026-12-02: "yesterday" is neither.`},
		{"since=2026-12-02&until=2026-12-01", "until", "Until must come after From: 2026-12-01 is not after 2026-12-02."},
	} {
		status, page := get("/audit?" + tt.query)
		if status != http.StatusUnprocessableEntity || page.text("error-"+tt.field) != tt.want || page.has("audit") || !page.has("audit-refused") {
			t.Errorf("GET /audit?%s = %d, %s error %q, want 422 with %q and no changes", tt.query, status, tt.field, page.text("error-"+tt.field), tt.want)
		}
		in := page.byID("filter-" + tt.field)
		if in == nil || attrOf(in, "aria-invalid") != "true" || attrOf(in, "aria-describedby") != "filter-"+tt.field+"-error" {
			t.Errorf("GET /audit?%s: the field %s is not marked invalid", tt.query, tt.field)
		}
		q, _ := url.ParseQuery(tt.query)
		if attrOf(in, "value") != q.Get(tt.field) {
			t.Errorf("GET /audit?%s: the field %s lost what was typed", tt.query, tt.field)
		}
	}
}
