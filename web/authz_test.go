package web

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/views"
)

// A verdict is what a console request answers.
type verdict string

const (
	served     verdict = "served"       // 200, the page asked for, or 303 for a form that redirects on success
	missing    verdict = "404"          // the 404 page, as for what does not exist
	toLogin    verdict = "to login"     // 303 to /login
	unauthed   verdict = "401"          // /graphql: 401 UNAUTHENTICATED
	hiddenData verdict = "data of none" // /graphql: 200, the object is null
)

// A route is a row of the console's matrix: a request about the objects of
// namespace ns, and what a tenant gets for its own namespace and for
// another tenant's, and an operator (served when not said). Anonymous
// visitors and revoked tokens get toLogin (unauthed at /graphql).
type route struct {
	name                     string
	method                   string
	path                     func(ns string) string
	form                     func(o object) url.Values // nil: no body
	graphql                  string                    // a GraphQL query of $ns, $name and $cidr, sent to /graphql as JSON
	owner, foreign, operator verdict
	// lists: the page lists objects; a tenant's shows its own namespace
	// and not the other tenant's.
	lists bool
	// audit is the number of audit entries an allowed request writes.
	audit int
}

func fixed(p string) func(string) string { return func(string) string { return p } }

// An object is what a request of user about namespace ns makes: its name
// and prefix differ for each user and namespace, so that every allowed
// request of a route makes something new.
type object struct {
	ns, name string
	n        int
}

func objectOf(ns, user string) object {
	n := map[string]int{"acme": 2, "corp": 3, "ops": 4}[user]
	if ns == "acme-corp/prod" {
		n += 10
	}
	return object{ns: ns, name: fmt.Sprintf("%s-%d", valueOrAnonymous(user), n), n: n}
}

// cidr is the object's prefix of 10.42.0.0/16, or of a public /24.
func (o object) cidr(public bool) string {
	if public {
		return fmt.Sprintf("198.51.%d.0/24", o.n)
	}
	return fmt.Sprintf("10.42.%d.0/24", o.n)
}

var routes = []route{
	{name: "GET /", method: http.MethodGet, path: fixed("/"), owner: served, foreign: served},
	{name: "GET /pools", method: http.MethodGet, path: fixed("/pools"), owner: served, foreign: served, lists: true},
	{name: "GET /pools/new", method: http.MethodGet, path: fixed("/pools/new"), owner: missing, foreign: missing},
	{name: "POST /pools", method: http.MethodPost, path: fixed("/pools"), owner: missing, foreign: missing, audit: 1,
		form: func(o object) url.Values { return url.Values{"name": {o.name}, "cidr": {o.cidr(true)}} }},
	{name: "GET /pools/<public>", method: http.MethodGet, path: fixed("/pools/public-zone-a"), owner: missing, foreign: missing},
	{name: "GET /pools/<public>/edit", method: http.MethodGet, path: fixed("/pools/public-zone-a/edit"), owner: missing, foreign: missing},
	{name: "GET /pools/<public>/delete", method: http.MethodGet, path: fixed("/pools/public-zone-a/delete"), owner: missing, foreign: missing},
	{name: "GET /pools/<ns>/<private>", method: http.MethodGet, path: func(ns string) string { return "/pools/" + ns + "/vpc-main" }, owner: served, foreign: missing},
	{name: "GET /vpcs", method: http.MethodGet, path: fixed("/vpcs"), owner: served, foreign: served, lists: true},
	{name: "GET /vpcs/<ns>/<name>", method: http.MethodGet, path: vpcPath, owner: served, foreign: missing},
	{name: "POST /vpcs/<ns>/<name>/-/attach-interface", method: http.MethodPost, path: vpcFormPath("attach-interface"), owner: served, foreign: missing, audit: 1,
		form: func(o object) url.Values {
			return url.Values{"subnet": {"web"}, "hostname": {o.name}, "nic": {"0"}}
		}},
	{name: "POST /vpcs/<ns>/<name>/-/claim-floating-ip", method: http.MethodPost, path: vpcFormPath("claim-floating-ip"), owner: served, foreign: missing, audit: 2,
		form: func(o object) url.Values {
			return url.Values{"name": {o.name}, "zone": {"zone-a"}}
		}},
	{name: "POST /vpcs/<ns>/<name>/-/create-subnet", method: http.MethodPost, path: vpcFormPath("create-subnet"), owner: served, foreign: missing, audit: 1,
		form: func(o object) url.Values {
			return url.Values{"name": {o.name}, "cidr": {o.cidr(false)}}
		}},
	{name: "POST /vpcs/<ns>/<name>/-/<a form that does not exist>", method: http.MethodPost, path: vpcFormPath("rename-vpc"), owner: missing, foreign: missing, operator: missing,
		form: func(object) url.Values { return url.Values{"name": {"x"}} }},
	{name: "GET /vpcs/<ns>/<name>?confirm=delete-vpc", method: http.MethodGet, path: func(ns string) string { return vpcPath(ns) + "?confirm=delete-vpc" }, owner: served, foreign: missing},
	{name: "GET /vpcs/<ns>/<name>?confirm=delete-subnet", method: http.MethodGet, path: func(ns string) string { return vpcPath(ns) + "?confirm=delete-subnet&subnet=web" }, owner: served, foreign: missing},
	{name: "POST /vpcs/<ns>/<name>/-/delete-subnet of none", method: http.MethodPost, path: vpcFormPath("delete-subnet"), owner: missing, foreign: missing, operator: missing,
		form: func(object) url.Values { return url.Values{"subnet": {"ghost"}} }},
	{name: "GET /audit", method: http.MethodGet, path: fixed("/audit"), owner: missing, foreign: missing},
	{name: "GET /quotas", method: http.MethodGet, path: fixed("/quotas"), owner: missing, foreign: missing},
	{name: "POST /quotas", method: http.MethodPost, path: fixed("/quotas"), owner: missing, foreign: missing, audit: 1,
		form: func(o object) url.Values { return url.Values{"pattern": {o.ns + "/" + o.name}, "vpcs": {"5"}} }},
	{name: "GET /quotas/unset?pattern=<ns>", method: http.MethodGet, path: func(ns string) string { return views.QuotaUnsetHref(ns) }, owner: missing, foreign: missing},
	{name: "POST /quotas/unset", method: http.MethodPost, path: fixed("/quotas/unset"), owner: missing, foreign: missing, audit: 1,
		form: func(o object) url.Values { return url.Values{"pattern": {o.ns}} }},
	{name: "GET /search?q=<prefix of both VPCs>", method: http.MethodGet, path: fixed("/search?q=10.42.1.0%2F24"), owner: served, foreign: served, lists: true},
	{name: "GET /resource-managers", method: http.MethodGet, path: fixed("/resource-managers"), owner: missing, foreign: missing},
	{name: "GET /<nothing>", method: http.MethodGet, path: fixed("/nothing-here"), owner: missing, foreign: missing, operator: missing},
	{name: "POST /logout", method: http.MethodPost, path: fixed("/logout"), owner: toLogin, foreign: toLogin, operator: toLogin,
		form: func(object) url.Values { return url.Values{} }},
	{name: "POST /graphql by session: a query", method: http.MethodPost, path: fixed("/graphql"), owner: served, foreign: hiddenData,
		graphql: `query($ns: String!) { vpc(namespace: $ns, name: "main") { name subnets { name cidr } } }`},
	{name: "POST /graphql by session: a mutation", method: http.MethodPost, path: fixed("/graphql"), owner: served, foreign: missing, audit: 1,
		graphql: `mutation($ns: String!, $name: String!, $cidr: String!) { createSubnet(input: {namespace: $ns, vpc: "main", name: $name, cidr: $cidr}) { name } }`},
}

func vpcPath(ns string) string { return "/vpcs/" + ns + "/main" }

// vpcFormPath is the path of the form of the VPC main of a namespace.
func vpcFormPath(form string) func(ns string) string {
	return func(ns string) string { return vpcPath(ns) + "/-/" + form }
}

// tenancyNamespaces are the namespaces of the tenants' objects in a
// tenancy.
var tenancyNamespaces = map[string]string{"acme": "acme/prod", "corp": "acme-corp/prod"}

// matrixUsers are the columns of the console's matrix: "" is an anonymous
// visitor and "revoked" one sending a revoked token.
var matrixUsers = []string{"", "revoked", "acme", "corp", "ops"}

// request sends r about ns as user, from the console's own pages.
func (tn *tenancy) request(t *testing.T, user string, r route, ns string, revoked string) (*http.Response, string) {
	t.Helper()
	var header http.Header
	switch user {
	case "":
		header = http.Header{"Sec-Fetch-Site": {"same-origin"}}
	case "revoked":
		header = http.Header{"Sec-Fetch-Site": {"same-origin"}, "Authorization": {"Bearer " + revoked}}
	default:
		header = tn.as(user)
	}
	body := ""
	o := objectOf(ns, user)
	switch {
	case r.graphql != "":
		b, err := json.Marshal(map[string]any{"query": r.graphql, "variables": map[string]any{"ns": ns, "name": o.name, "cidr": o.cidr(false)}})
		if err != nil {
			t.Fatal(err)
		}
		body = string(b)
		header.Set("Content-Type", "application/json")
	case r.form != nil:
		body = r.form(o).Encode()
	}
	res := tn.serve(t, r.method, r.path(ns), body, header)
	return res, string(readBody(t, res))
}

// verdictOf classifies an answer to r sent to path.
func verdictOf(r route, path string, res *http.Response, page string) verdict {
	loc := res.Header.Get("Location")
	switch {
	case res.StatusCode == http.StatusSeeOther && (loc == "/login" || strings.HasPrefix(loc, "/login?")):
		return toLogin
	case res.StatusCode == http.StatusNotFound && parseHTML(page).has("not-found"):
		return missing
	case r.graphql != "":
		var answer struct {
			Data   map[string]json.RawMessage
			Errors []struct{ Extensions struct{ Code string } }
		}
		if err := json.Unmarshal([]byte(page), &answer); err != nil {
			return verdict(fmt.Sprintf("%d %s", res.StatusCode, page))
		}
		switch {
		case res.StatusCode == http.StatusUnauthorized && len(answer.Errors) == 1 && answer.Errors[0].Extensions.Code == "UNAUTHENTICATED":
			return unauthed
		case res.StatusCode == http.StatusOK && len(answer.Errors) == 1 && answer.Errors[0].Extensions.Code == "NOT_FOUND":
			return missing
		case res.StatusCode == http.StatusOK && len(answer.Errors) == 0 && len(answer.Data) == 1:
			for _, v := range answer.Data {
				if string(v) == "null" {
					return hiddenData
				}
			}
			return served
		}
	case res.StatusCode == http.StatusOK && parseHTML(page).has("page-title"):
		return served
	case res.StatusCode == http.StatusSeeOther && path == "/pools" && strings.HasPrefix(loc, "/pools/"):
		return served
	case res.StatusCode == http.StatusSeeOther && r.form != nil && (loc == path || strings.HasPrefix(path, loc+views.ActionSeparator)):
		// A form leads back to its page; a VPC page's, from its own
		// path, to the VPC page.
		return served
	case res.StatusCode == http.StatusSeeOther && path == "/quotas/unset" && loc == views.QuotasPath:
		return served
	}
	return verdict(fmt.Sprintf("%d to %q: %.300s", res.StatusCode, loc, page))
}

// TestConsoleAuthorizationMatrix sends every route of the console about
// the objects of acme (acme/*) and of corp (acme-corp/*) as an anonymous
// visitor, a revoked token, the owner, the other tenant and an operator.
// Each cell answers as its route says; a refused request changes nothing
// and writes no audit entry, an allowed change writes its entries as its
// user; lists show a tenant nothing of the other's; and the 404 page of
// another tenant's object is the 404 page of one that does not exist
// (here or in a namespace that holds nothing) but for the path.
//
// The other rules of access are tested beside: a session token planted
// before sign-in is replaced (TestSessionRenewedAtLogin), the sixth
// sign-in of a name within ten minutes is refused with 429 even with the
// right password (TestLoginRateLimit), cross-origin writes
// (TestCrossOriginWritesRefused, TestCrossOriginRequestsRefused) and
// tokens in the URL (TestTokenInURLRefused) are refused.
func TestConsoleAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			tn := newTenancy(t)
			revoked := revokedToken(t, tn)
			for tenant, ns := range tenancyNamespaces {
				other := map[string]string{"acme": "corp", "corp": "acme"}[tenant]
				for _, user := range matrixUsers {
					want := map[string]verdict{"": toLogin, "revoked": toLogin, tenant: r.owner, other: r.foreign, "ops": cmp.Or(r.operator, served)}[user]
					if r.graphql != "" && (user == "" || user == "revoked") {
						want = unauthed
					}
					name := fmt.Sprintf("%s about %s as %s", r.name, ns, valueOrAnonymous(user))
					before := tn.counts(t)
					lastID := lastAudit(t, tn)
					res, page := tn.request(t, user, r, ns, revoked)
					if r.name == "POST /logout" && tn.sessions[user] != nil {
						tn.signIn(t, user)
					}
					if got := verdictOf(r, r.path(ns), res, page); got != want {
						t.Errorf("%s: %s, want %s", name, got, want)
						continue
					}
					written := auditAfter(t, tn, lastID)
					if want == served && r.audit > 0 {
						if len(written) != r.audit || strings.Trim(strings.Join(written, " "), user+" ") != "" {
							t.Errorf("%s wrote the audit entries of %v, want %d of %s", name, written, r.audit, user)
						}
						continue
					}
					if after := tn.counts(t); !reflect.DeepEqual(before, after) || len(written) > 0 {
						t.Errorf("%s (%s) changed the database: %v, then %v; audit entries of %v", name, want, before, after, written)
					}
					if mine, ok := tenancyNamespaces[user]; r.lists && ok {
						list := parseHTML(page)
						shown := list.elements(func(n *html.Node) bool { return textOf(n) == mine })
						if len(shown) == 0 || list.mentions(authzOther(mine)) {
							t.Errorf("%s: the list does not show %s, or shows %s", name, mine, authzOther(mine))
						}
					}
				}
				if r.foreign != missing || r.graphql != "" || !strings.Contains(r.path(ns), ns) {
					continue
				}
				// The other tenant cannot tell this page from one of
				// nothing.
				res, page := tn.request(t, other, r, ns, revoked)
				here := r.path(ns)
				for _, nothing := range []string{r.path(strings.Replace(ns, "prod", "void", 1)), here[:strings.LastIndexByte(here, '/')] + "/ghost"} {
					r2 := r
					r2.path = fixed(nothing)
					res2, page2 := tn.request(t, other, r2, ns, revoked)
					// The 404 page names the path, not its query.
					nothingPath, _, _ := strings.Cut(nothing, "?")
					herePath, _, _ := strings.Cut(here, "?")
					if res2.StatusCode != res.StatusCode || strings.ReplaceAll(page2, nothingPath, "PATH") != strings.ReplaceAll(page, herePath, "PATH") {
						t.Errorf("%s as %s: the page of %s differs from the page of %s but for the path:\n%s\n---\n%s", r.name, other, here, nothing, page, page2)
					}
				}
			}
		})
	}
	t.Run("operator pages look like nothing to tenants", func(t *testing.T) {
		t.Parallel()
		tn := newTenancy(t)
		for p, nothing := range map[string]string{"/pools/new": "/pools/nothing", "/pools/public-zone-a": "/pools/nothing", "/audit": "/nothing", "/quotas": "/nothing"} {
			_, page := tn.request(t, "acme", route{method: http.MethodGet, path: fixed(p)}, "", "")
			_, none := tn.request(t, "acme", route{method: http.MethodGet, path: fixed(nothing)}, "", "")
			if strings.ReplaceAll(page, p, "PATH") != strings.ReplaceAll(none, nothing, "PATH") {
				t.Errorf("a tenant's GET %s differs from the 404 page of %s but for the path:\n%s\n---\n%s", p, nothing, page, none)
			}
		}
	})
}

// TestOperatorRoutesLookLikeNothingToTenants sends every route of the
// operators' group (operatorRoutes, which requireOperator guards) as a
// tenant: each answers the 404 page of a path that does not exist, but
// for the path, and changes nothing; anonymous visitors are sent to
// /login.
func TestOperatorRoutesLookLikeNothingToTenants(t *testing.T) {
	t.Parallel()
	tn := newTenancy(t)
	wildcards := strings.NewReplacer("{kind}", "IpamVLAN", "{id}", "01a23463-8359-7000-ac1b-f33937723dc7", "{name}", "main", "{path...}", "acme/prod/main")
	for pattern := range (&Server{}).operatorRoutes() {
		method, path, _ := strings.Cut(pattern, " ")
		path = wildcards.Replace(path)
		// A path of nothing in the same section, which the navigation
		// marks alike.
		section, _, _ := strings.Cut(path[1:], "/")
		none := "/" + section + "/nothing-here"
		_, nothing := tn.request(t, "acme", route{method: http.MethodGet, path: fixed(none)}, "", "")
		r := route{method: method, path: fixed(path)}
		if method == http.MethodPost {
			r.form = func(o object) url.Values { return url.Values{"name": {o.name}, "pattern": {o.ns}, "vpcs": {"1"}} }
		}
		before, lastID := tn.counts(t), lastAudit(t, tn)
		res, page := tn.request(t, "acme", r, "acme/prod", "")
		if res.StatusCode != http.StatusNotFound || strings.ReplaceAll(page, "<code>"+path+"</code>", "PATH") != strings.ReplaceAll(nothing, "<code>"+none+"</code>", "PATH") {
			t.Errorf("a tenant's %s %s answered %d, not the 404 page of %s but for the path:\n%s\n---\n%s", method, path, res.StatusCode, none, page, nothing)
		}
		if after, written := tn.counts(t), auditAfter(t, tn, lastID); !reflect.DeepEqual(before, after) || len(written) > 0 {
			t.Errorf("a tenant's %s %s changed the database: %v, then %v; audit entries of %v", method, path, before, after, written)
		}
		if got := verdictOf(r, path, tn.serve(t, method, path, "", http.Header{"Sec-Fetch-Site": {"same-origin"}}), ""); got != toLogin {
			t.Errorf("an anonymous %s %s: %s, want %s", method, path, got, toLogin)
		}
	}
}

func valueOrAnonymous(user string) string {
	if user == "" {
		return "anonymous"
	}
	return user
}

// authzOther is the namespace of the other tenant's objects.
func authzOther(ns string) string {
	if ns == "acme/prod" {
		return "acme-corp/prod"
	}
	return "acme/prod"
}

// revokedToken returns a token of ops, revoked.
func revokedToken(t *testing.T, tn *tenancy) string {
	t.Helper()
	users := auth.NewService(tn.db)
	token, err := users.CreateToken(t.Context(), auth.System, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.RevokeTokens(t.Context(), auth.System, "ops"); err != nil {
		t.Fatal(err)
	}
	return token
}

func lastAudit(t *testing.T, tn *tenancy) int64 {
	t.Helper()
	var id int64
	if err := tn.db.GetContext(t.Context(), &id, `SELECT coalesce(max(id), 0) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	return id
}

// auditAfter returns the actors of the entries after the entry id.
func auditAfter(t *testing.T, tn *tenancy, id int64) []string {
	t.Helper()
	entries, err := store.AuditEntries(t.Context(), tn.db, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var actors []string
	for _, e := range entries {
		if e.ID > id {
			actors = append(actors, e.Actor)
		}
	}
	return actors
}

// TestCrossOriginWritesRefused sends, with a valid session, the console's
// writes and a GraphQL mutation from another origin: each is refused with
// 403 and stores nothing. The same requests from the console's own pages
// are allowed.
func TestCrossOriginWritesRefused(t *testing.T) {
	t.Parallel()
	tn := newTenancy(t)
	mutation := `{"query": "mutation { createSubnet(input: {namespace: \"acme/prod\", vpc: \"main\", name: \"db2\", cidr: \"10.42.3.0/24\"}) { name } }"}`
	writes := []struct {
		name, user, target, contentType, body string
	}{
		{"POST /pools", "ops", "/pools", "application/x-www-form-urlencoded", url.Values{"name": {"public-b"}, "cidr": {"198.51.100.0/24"}}.Encode()},
		{"POST /vpcs/acme/prod/main/-/create-subnet", "acme", "/vpcs/acme/prod/main/-/create-subnet", "application/x-www-form-urlencoded",
			url.Values{"name": {"db"}, "cidr": {"10.42.2.0/24"}}.Encode()},
		{"POST /graphql", "acme", "/graphql", "application/json", mutation},
	}
	for _, w := range writes {
		for _, origin := range [][2]string{
			{"Sec-Fetch-Site", "cross-site"},
			{"Sec-Fetch-Site", "same-site"},
			{"Origin", "https://evil.example"},
			{"Origin", "null"},
		} {
			before := tn.counts(t)
			header := tn.as(w.user, "Content-Type", w.contentType, origin[0], origin[1])
			if origin[0] == "Origin" {
				header.Del("Sec-Fetch-Site")
			}
			res := tn.serve(t, http.MethodPost, w.target, w.body, header)
			readBody(t, res)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("%s with %s: %s = %d, want %d", w.name, origin[0], origin[1], res.StatusCode, http.StatusForbidden)
			}
			if after := tn.counts(t); !reflect.DeepEqual(before, after) {
				t.Errorf("%s with %s: %s changed the database: %v, then %v", w.name, origin[0], origin[1], before, after)
			}
		}
		// From the console's own pages, the same request is done.
		before := tn.counts(t)
		res := tn.serve(t, http.MethodPost, w.target, w.body, tn.as(w.user, "Content-Type", w.contentType))
		page := string(readBody(t, res))
		if after := tn.counts(t); res.StatusCode >= 400 || reflect.DeepEqual(before, after) {
			t.Errorf("%s from the console's own page = %d and stored nothing: %s", w.name, res.StatusCode, page)
		}
	}
}

// TestTokenInURLRefused sends a valid token in the URL, alone, beside a
// valid session and beside the same token in the header: each is refused
// with 401, and the mutation it carries stores nothing.
func TestTokenInURLRefused(t *testing.T) {
	t.Parallel()
	tn := newTenancy(t)
	token, err := auth.NewService(tn.db).CreateToken(t.Context(), auth.System, "acme")
	if err != nil {
		t.Fatal(err)
	}
	mutation := `{"query": "mutation { createSubnet(input: {namespace: \"acme/prod\", vpc: \"main\", name: \"db\", cidr: \"10.42.2.0/24\"}) { name } }"}`
	for _, param := range []string{"token", "access_token"} {
		for _, tt := range []struct {
			name, value string
			header      http.Header
		}{
			{"alone", token, http.Header{"Content-Type": {"application/json"}}},
			{"beside a session", token, tn.as("acme", "Content-Type", "application/json")},
			{"beside the header", token, http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + token}}},
			{"empty, beside the header", "", http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + token}}},
		} {
			target := "/graphql?" + param + "=" + url.QueryEscape(tt.value)
			before := tn.counts(t)
			res := tn.serve(t, http.MethodPost, target, mutation, tt.header)
			page := string(readBody(t, res))
			if res.StatusCode != http.StatusUnauthorized || !strings.Contains(page, "tokens are not accepted in the URL") {
				t.Errorf("POST %s %s = %d, want 401 refusing the token in the URL: %s", target, tt.name, res.StatusCode, page)
			}
			if after := tn.counts(t); !reflect.DeepEqual(before, after) {
				t.Errorf("POST %s %s changed the database: %v, then %v", target, tt.name, before, after)
			}
		}
	}
	// The same token in the header is accepted.
	res := tn.serve(t, http.MethodPost, "/graphql", mutation, http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + token}})
	if page := string(readBody(t, res)); res.StatusCode != http.StatusOK || !strings.Contains(page, `"name":"db"`) {
		t.Errorf("the token in the header: %d %s", res.StatusCode, page)
	}
}

// TestAuditPage lists the audit log to an operator, newest first, 50 a
// page, with a namespace filter, and answers tenants with the 404 page;
// the navigation links it for operators only.
func TestAuditPage(t *testing.T) {
	t.Parallel()
	tn := newTenancy(t)
	ctx := context.Background()
	acme := auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
	for i := range 60 {
		if _, err := tn.svc.AttachInterface(ctx, acme, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
			VM: ipam.VMRef{UID: fmt.Sprint("vm-", i), Hostname: fmt.Sprintf("vm-%02d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := store.AuditEntries(ctx, tn.db, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	get := func(user, target string) (int, htmlPage) {
		t.Helper()
		res := tn.serve(t, http.MethodGet, target, "", tn.as(user))
		return res.StatusCode, parseHTML(string(readBody(t, res)))
	}
	// ids returns the ids of the page's rows.
	ids := func(page htmlPage) []string {
		var out []string
		for _, id := range page.testIDs("audit-") {
			if n := strings.TrimPrefix(id, "audit-"); strings.Trim(n, "0123456789") == "" {
				out = append(out, n)
			}
		}
		return out
	}

	status, page := get("ops", "/audit")
	if status != http.StatusOK || len(ids(page)) != auditPerPage || ids(page)[0] != fmt.Sprint(entries[0].ID) {
		t.Fatalf("GET /audit = %d with rows %v, want the %d newest from %d", status, ids(page), auditPerPage, entries[0].ID)
	}
	newest := entries[0]
	row := page.in(fmt.Sprintf("audit-%d", newest.ID))
	for id, want := range map[string]string{
		"audit-actor": "acme", "audit-sentence": "acme attached vm-59/0 to subnet web: 10.42.1.61", "audit-namespace": "acme/prod",
	} {
		if got := row.text(id); got != want {
			t.Errorf("the newest row's %s is %q, want %q", id, got, want)
		}
	}
	if times := row.tags("time"); len(times) != 1 || attrOf(times[0], "datetime") != newest.At.UTC().Format("2006-01-02T15:04:05Z") {
		t.Errorf("the newest row's time is not %s", newest.At.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if !page.in("nav").linksTo("/audit", true) {
		t.Errorf("the operator's navigation does not mark Audit")
	}
	next := page.all("next-page")
	if len(next) != 1 || page.has("first-page") {
		t.Fatalf("the first page has no next-page link, or a first-page link")
	}
	status, page = get("ops", attrOf(next[0], "href"))
	if got := ids(page); status != http.StatusOK || len(got) != len(entries)-auditPerPage || got[0] != fmt.Sprint(entries[auditPerPage].ID) ||
		page.has("next-page") || !page.has("first-page") || attrOf(page.all("first-page")[0], "href") != "/audit" {
		t.Errorf("the second page = %d with rows %v, want the %d oldest, a first-page link and no next-page link", status, got, len(entries)-auditPerPage)
	}

	for target, want := range map[string]int{
		"/audit?namespace=acme-corp%2Fprod":   2,
		"/audit?namespace=acme-corp%2F%2A":    2,
		"/audit?namespace=acme%2F%2A":         auditPerPage,
		"/audit?namespace=globex%2Fprod":      0,
		"/audit?namespace=acme%2Fprod&before": auditPerPage,
	} {
		status, page := get("ops", target)
		if status != http.StatusOK || len(ids(page)) != want {
			t.Errorf("GET %s = %d with %d rows, want %d", target, status, len(ids(page)), want)
		}
		if want == 0 && page.text("no-audit") != "No change recorded in globex/prod." {
			t.Errorf("GET %s does not say that nothing was recorded", target)
		}
	}
	if _, page := get("ops", "/audit?namespace=acme%2F%2A"); len(page.all("next-page")) != 1 || !strings.HasSuffix(attrOf(page.all("next-page")[0], "href"), "&namespace=acme%2F%2A") {
		t.Errorf("the next page of a filtered page loses the filter")
	}
	if _, page := get("ops", "/audit?before=not-a-number"); len(ids(page)) != auditPerPage || ids(page)[0] != fmt.Sprint(newest.ID) {
		t.Errorf("a bad cursor does not fall back to the first page")
	}

	for _, tenant := range []string{"acme", "corp"} {
		status, page := get(tenant, "/audit")
		if status != http.StatusNotFound || !page.has("not-found") || len(ids(page)) != 0 {
			t.Errorf("%s GET /audit = %d, want the 404 page", tenant, status)
		}
		if _, page := get(tenant, "/"); page.linksTo("/audit", false) || page.linksTo("/audit", true) {
			t.Errorf("%s's navigation links the audit log", tenant)
		}
	}
	if _, page := get("ops", "/"); !page.in("nav").linksTo("/audit", false) {
		t.Errorf("the operator's navigation does not link the audit log")
	}
}
