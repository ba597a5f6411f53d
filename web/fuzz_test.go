package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/views"
)

// callLimit is how long one request of bad input may take.
const callLimit = 5 * time.Second

// tenancy is a console on a database holding public-zone-a (zone-a), and
// for each of acme (acme/*) and corp (acme-corp/*) a VPC main in
// <namespace>/prod with a subnet web; with the session headers of ops (an
// operator), acme and corp.
type tenancy struct {
	h        http.Handler
	db       *store.DB
	svc      *ipam.Service
	sessions map[string]http.Header
}

// newTenancy makes a tenancy for tb, which may be a fuzz target.
func newTenancy(tb testing.TB) *tenancy {
	tb.Helper()
	ctx := context.Background()
	db := pgtest.NewDB(tb)
	svc, err := ipam.New(ctx, ipam.Config{DB: db, Logger: quietLogger})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(svc.Close)
	h, err := New(Config{Auth: auth.NewService(db), IPAM: svc, Numbers: testNumbers(tb, db), Logger: quietLogger, Version: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		tb.Fatal(err)
	}
	for _, ns := range []string{"acme/prod", "acme-corp/prod"} {
		if _, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: ns, Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}); err != nil {
			tb.Fatal(err)
		}
		if _, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: ns, VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
			tb.Fatal(err)
		}
		if _, err := svc.SetQuota(ctx, auth.System, ipam.QuotaChange{Pattern: ns, Set: map[ipam.QuotaKind]int64{ipam.QuotaVPCs: 10}}); err != nil {
			tb.Fatal(err)
		}
	}
	tn := &tenancy{h: h, db: db, svc: svc, sessions: map[string]http.Header{}}
	hash, err := tenancyHash()
	if err != nil {
		tb.Fatal(err)
	}
	for _, u := range []struct {
		name, role string
		namespaces []string
	}{{"ops", "operator", nil}, {"acme", "tenant", []string{"acme/*"}}, {"corp", "tenant", []string{"acme-corp/*"}}} {
		if _, err := store.CreateUser(ctx, db, "system", store.UserRow{Name: u.name, Role: u.role, Namespaces: u.namespaces, PasswordHash: hash}); err != nil {
			tb.Fatal(err)
		}
		tn.signIn(tb, u.name)
	}
	return tn
}

// tenancyPassword is the password of a tenancy's users; its hash is
// computed once, for every tenancy.
const tenancyPassword = "the tenancy's long password"

var tenancyHash = sync.OnceValues(func() (string, error) { return auth.HashPassword(tenancyPassword) })

// signIn signs user in and keeps the session's header.
func (tn *tenancy) signIn(tb testing.TB, user string) {
	tb.Helper()
	res := tn.serve(tb, http.MethodPost, "/login", url.Values{"username": {user}, "password": {tenancyPassword}}.Encode(), nil)
	c := sessionCookieOf(res)
	if res.StatusCode != http.StatusSeeOther || c == nil {
		tb.Fatalf("signing in as %s: %d", user, res.StatusCode)
	}
	tn.sessions[user] = cookieHeader(c)
}

// serve sends a request of body (a form when not empty) with header and
// returns the response, its body read.
func (tn *tenancy) serve(tb testing.TB, method, target, body string, header http.Header) *http.Response {
	tb.Helper()
	req := httptest.NewRequestWithContext(context.Background(), method, target, strings.NewReader(body))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	rec := httptest.NewRecorder()
	tn.h.ServeHTTP(rec, req)
	return rec.Result()
}

// as returns the header of user's browser on a page of the console: its
// session, and a same-origin request.
func (tn *tenancy) as(user string, kv ...string) http.Header {
	h := http.Header{"Sec-Fetch-Site": {"same-origin"}}
	for k, vs := range tn.sessions[user] {
		h[k] = vs
	}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// counts returns the number of rows of every table a change writes.
func (tn *tenancy) counts(tb testing.TB) map[string]int {
	tb.Helper()
	out := map[string]int{}
	for _, table := range []string{"pools", "vpcs", "subnets", "allocations", "floating_ips", "quotas", "users", "api_tokens", "audit_log"} {
		var n int
		if err := tn.db.GetContext(context.Background(), &n, "SELECT count(*) FROM "+table); err != nil {
			tb.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// formTargets are the forms FuzzConsoleForms posts to: the new pool form,
// acme's VPC, corp's VPC, a VPC that does not exist, and the set-quota
// form.
var formTargets = []string{"/pools", "/vpcs/acme/prod/main", "/vpcs/acme-corp/prod/main", "/vpcs/acme/prod/ghost", "/quotas"}

// fuzzUsers are who posts the forms.
var fuzzUsers = []string{"ops", "acme", "corp"}

// formOf returns where FuzzConsoleForms posts to target and the form it
// posts: the pool form's fields, the quota form's, or to the VPC form
// action (/-/<action>) the fields of every form.
func formOf(target, action, f1, f2, f3, f4 string) (string, url.Values) {
	switch target {
	case "/pools":
		return target, url.Values{"name": {f1}, "cidr": {f2}, "gateway": {f3}, "exclude": {f4}, "zone": {action}}
	case "/quotas":
		return target, url.Values{"pattern": {f1}, "vpcs": {f2}, "subnets": {f3}, "floating_ips": {f4}, "addresses": {action}}
	}
	return target + "/-/" + url.PathEscape(action), url.Values{"name": {f1}, "subnet": {f1}, "hostname": {f2}, "zone": {f2}, "cidr": {f2},
		"nic": {f3}, "gateway": {f3}, "predicted": {f4}, "prefixLength": {f4}}
}

// vpcForms are the forms the VPC page posts, each to its own path.
var vpcForms = []string{views.FormAttachInterface, views.FormClaimFloatingIP, views.FormCreateSubnet,
	views.ConfirmDetach, views.ConfirmReleaseFIP, views.ConfirmDeleteSubnet, views.ConfirmDeleteVPC}

// fieldError reports whether the page shows a message of the server about
// a field or the form.
func fieldError(page htmlPage) bool {
	for _, id := range page.testIDs("") {
		if (strings.HasPrefix(id, "error-") || id == "form-error" || id == "claim-error") && page.text(id) != "" {
			return true
		}
	}
	return false
}

// checkFormAnswer checks the answer to a form of user posted to target (a
// VPC's form action): never a 5xx; what was refused is shown again with a
// message, or is the 404 page when the user may not see the target or the
// form does not exist (ServeMux may lead an action such as ".." to the
// cleaned path first); what was done leads to the page that shows it.
func checkFormAnswer(t *testing.T, user, target, action string, res *http.Response, page string) {
	t.Helper()
	owner := user == "ops" || target == "/vpcs/acme/prod/main" && user == "acme" || target == "/vpcs/acme-corp/prod/main" && user == "corp"
	vpc := strings.HasPrefix(target, "/vpcs/")
	switch {
	case res.StatusCode >= 500:
		t.Errorf("%s POST %s = %d", user, target, res.StatusCode)
	case vpc && !slices.Contains(vpcForms, action) && res.StatusCode == http.StatusMovedPermanently:
	case vpc && !slices.Contains(vpcForms, action):
		if res.StatusCode != http.StatusNotFound || !parseHTML(page).has("not-found") {
			t.Errorf("%s POST %s to the form %q that does not exist = %d, want the 404 page", user, target, action, res.StatusCode)
		}
	case target == "/vpcs/acme/prod/ghost" || !owner:
		if res.StatusCode != http.StatusNotFound || !parseHTML(page).has("not-found") {
			t.Errorf("%s POST %s = %d, want the 404 page", user, target, res.StatusCode)
		}
	case res.StatusCode == http.StatusUnprocessableEntity:
		form := map[string]string{"/pools": "form-new-pool", "/quotas": "form-set-quota"}[target]
		if form == "" {
			form = "form-attach-interface"
		}
		if p := parseHTML(page); !p.has(form) || !fieldError(p) {
			t.Errorf("%s POST %s = 422 without the form and its message:\n%s", user, target, page)
		}
	case res.StatusCode == http.StatusBadRequest:
		if !strings.HasPrefix(page, "The form could not be read") {
			t.Errorf("%s POST %s = 400: %s", user, target, page)
		}
	case target == "/pools":
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/pools/") {
			t.Errorf("%s POST %s = %d to %q, want 303 to the new pool or 422", user, target, res.StatusCode, res.Header.Get("Location"))
		}
	default:
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != target {
			t.Errorf("%s POST %s = %d to %q, want 303 to the VPC page or 422", user, target, res.StatusCode, res.Header.Get("Location"))
		}
	}
}

// FuzzConsoleForms posts the new pool form, the VPC page's claim forms and
// the set-quota form with arbitrary actions and fields, as ops, acme and corp, to their own
// and others' VPCs and to one that does not exist, from the console's own
// pages: never a 5xx, a refusal shows the form again with its message (or
// the 404 page), and stores nothing; every answer comes within callLimit.
func FuzzConsoleForms(f *testing.F) {
	seeds := []struct {
		who, target            uint8
		action, f1, f2, f3, f4 string
	}{
		{0, 0, "zone-b", "public-b", "198.51.100.0/24", "198.51.100.1", "198.51.100.2\n198.51.100.10-198.51.100.20"},
		{0, 0, "", "'; DROP TABLE pools; --", "198.51.100.0/24", "", ""},
		{0, 0, "zone\x00", "mäin", "198.51.100.0/33", "10.0.0.1", "a,b,,c"},
		{0, 0, "", "p2", "203.0.113.128/25", "", ""},
		{1, 0, "", "p3", "192.0.2.0/24", "", ""},
		{1, 1, "attach-interface", "web", "web-01", "0", "10.42.1.2"},
		{1, 1, "attach-interface", "web", "web 01", "-1", ""},
		{1, 1, "attach-interface", "nope", "web-02", "99999999999999999999", ""},
		{1, 1, "claim-floating-ip", "fip-1", "zone-a", "", "203.0.113.3"},
		{1, 1, "claim-floating-ip", "FIP", "zone-x", "", ""},
		{1, 1, "create-subnet", "db", "10.42.2.0/24", "10.42.2.254", ""},
		{1, 1, "create-subnet", "db\t", "10.43.2.0/24", "", ""},
		{1, 1, "create-subnet", "db", "", "", "24"},
		{1, 1, "create-subnet", "db", "", "", "/8"},
		{1, 1, "delete-everything", "x", "y", "z", ""},
		{2, 1, "attach-interface", "web", "web-01", "0", ""},
		{2, 2, "create-subnet", "db", "10.42.2.0/24", "", "<script>alert(1)</script>"},
		{0, 2, "claim-floating-ip", "fip-2", "zone-a", "", ""},
		{0, 3, "create-subnet", "db", "10.42.2.0/24", "", ""},
		{0, 4, "", "acme/*", "2", "", "1"},
		{0, 4, "10", "acme/**", "-1", "1e3", " 7"},
		{0, 4, "", "acme/prod", "", "", ""},
		{0, 4, "99999999999999999999", "x/*", "2147483648", "0x10", "٣"},
		{1, 4, "", "acme/*", "2", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.who, s.target, s.action, s.f1, s.f2, s.f3, s.f4)
	}
	tn := newTenancy(f)
	f.Fuzz(func(t *testing.T, who, target uint8, action, f1, f2, f3, f4 string) {
		user := fuzzUsers[int(who)%len(fuzzUsers)]
		path := formTargets[int(target)%len(formTargets)]
		before := tn.counts(t)
		start := time.Now()
		to, form := formOf(path, action, f1, f2, f3, f4)
		res := tn.serve(t, http.MethodPost, to, form.Encode(), tn.as(user))
		body, err := io.ReadAll(res.Body)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if took > callLimit {
			t.Errorf("%s POST %s took %v, more than %v", user, path, took, callLimit)
		}
		checkFormAnswer(t, user, path, action, res, string(body))
		if res.StatusCode >= 400 {
			if after := tn.counts(t); !reflect.DeepEqual(before, after) {
				t.Errorf("%s POST %s was refused (%d) but changed the database: %v, then %v", user, path, res.StatusCode, before, after)
			}
		}
	})
}

// TestConsoleBadInput posts and asks for the named kinds of bad input:
// each is answered by a 4xx (or a page that finds nothing) within
// callLimit, never a 5xx, and stores nothing.
func TestConsoleBadInput(t *testing.T) {
	tn := newTenancy(t)
	excludes := make([]string, 10000)
	for i := range excludes {
		excludes[i] = fmt.Sprintf("198.51.%d.%d", 100+i/256, i%256)
	}
	pool := func(name, cidr, exclude, zone string) string {
		return url.Values{"name": {name}, "cidr": {cidr}, "exclude": {exclude}, "zone": {zone}}.Encode()
	}
	claim := func(name, cidr, hostname string) string {
		return url.Values{"name": {name}, "cidr": {cidr}, "subnet": {"web"}, "hostname": {hostname}, "zone": {"zone-a"}}.Encode()
	}
	huge := strings.Repeat("a", 11<<20)
	manyFields := strings.Repeat("x=1&", 20000) + pool("p", "198.51.100.0/24", "", "")
	tests := []struct {
		name, user, method, target, body string
		status                           int
		// The page's element id holds want; without an id, the answer
		// is plain text, holding want.
		id, want string
	}{
		// Oversized bodies. The forms' handlers set no limit of their own:
		// net/http's ParseForm reads 10 MiB at most.
		{"a pool form of 11 MiB", "ops", http.MethodPost, "/pools", pool("p", "198.51.100.0/24", huge, ""), http.StatusRequestEntityTooLarge, "", "The form is larger than 256 KiB; send less."},
		{"a claim form of 11 MiB", "acme", http.MethodPost, "/vpcs/acme/prod/main/-/create-subnet", claim(huge, "10.42.2.0/24", ""), http.StatusRequestEntityTooLarge, "", "The form is larger than 256 KiB; send less."},
		{"a pool form of 20 000 fields", "ops", http.MethodPost, "/pools", manyFields, http.StatusBadRequest, "", "The form could not be read"},
		{"a form that is not URL-encoded", "ops", http.MethodPost, "/pools", "name=%zz&cidr=198.51.100.0/24", http.StatusBadRequest, "", "The form could not be read"},

		// 10 000 excludes: the domain takes 4096.
		{"10 000 excludes", "ops", http.MethodPost, "/pools", pool("big", "198.51.0.0/16", strings.Join(excludes, "\n"), ""),
			http.StatusUnprocessableEntity, "error-exclude", "Exclude has 10000 entries; at most 4096 are accepted"},

		// Unicode and control characters in names.
		{"a pool named with an umlaut", "ops", http.MethodPost, "/pools", pool("mäin", "198.51.100.0/24", "", ""), http.StatusUnprocessableEntity, "error-name", `Name "mäin" is not a valid name`},
		{"a pool named with a NUL", "ops", http.MethodPost, "/pools", pool("ma\x00in", "198.51.100.0/24", "", ""), http.StatusUnprocessableEntity, "error-name", `Name "ma\x00in"`},
		{"a pool named with a right-to-left override", "ops", http.MethodPost, "/pools", pool("ma\u202ein", "198.51.100.0/24", "", ""), http.StatusUnprocessableEntity, "error-name", `Name "ma\u202ein"`},
		{"a zone with an escape sequence", "ops", http.MethodPost, "/pools", pool("p", "198.51.100.0/24", "", "\x1b[31m"), http.StatusUnprocessableEntity, "error-zone", `Zone "\x1b[31m"`},
		{"an exclude in unicode digits", "ops", http.MethodPost, "/pools", pool("p", "198.51.100.0/24", "١٩٨.٥١.١٠٠.٢", ""), http.StatusUnprocessableEntity, "error-exclude", `Exclude "١٩٨.٥١.١٠٠.٢" is not an IPv4 address`},
		{"a subnet named with a tab", "acme", http.MethodPost, "/vpcs/acme/prod/main/-/create-subnet", claim("d\tb", "10.42.2.0/24", ""), http.StatusUnprocessableEntity, "form-create-subnet error-name", `Name "d\tb"`},
		{"a hostname in unicode", "acme", http.MethodPost, "/vpcs/acme/prod/main/-/attach-interface", claim("", "", "wéb-01"), http.StatusUnprocessableEntity, "error-hostname", `Hostname "wéb-01" is not a valid hostname`},
		{"a floating IP named with a newline", "acme", http.MethodPost, "/vpcs/acme/prod/main/-/claim-floating-ip", claim("fi\np", "", ""), http.StatusUnprocessableEntity, "form-claim-floating-ip error-name", `Name "fi\np"`},
		{"a VPC path with a NUL", "acme", http.MethodGet, "/vpcs/acme/prod/main%00", "", http.StatusNotFound, "not-found", ""},
		{"a claim on a VPC path with a NUL", "acme", http.MethodPost, "/vpcs/acme%00/prod/main/-/create-subnet", claim("db", "10.42.2.0/24", ""), http.StatusNotFound, "not-found", ""},
		{"a pool path with a NUL", "ops", http.MethodGet, "/pools/public-zone-a%00", "", http.StatusNotFound, "not-found", ""},
		{"a pool path that is not UTF-8", "ops", http.MethodGet, "/pools/acme/prod/vpc-%ff", "", http.StatusNotFound, "not-found", ""},
		{"a search with a NUL", "acme", http.MethodGet, "/pools/acme/prod/vpc-main?q=%00", "", http.StatusUnprocessableEntity, "error-search", `Search "\x00" holds a NUL or is not UTF-8`},
		{"a search that is not UTF-8", "acme", http.MethodGet, "/pools/acme/prod/vpc-main?q=%ff", "", http.StatusUnprocessableEntity, "error-search", `Search "\xff" holds a NUL or is not UTF-8`},
		{"a prefix with a NUL", "acme", http.MethodGet, "/pools/acme/prod/vpc-main?prefix=10.42.1.0%00", "", http.StatusUnprocessableEntity, "error-prefix", `"10.42.1.0\x00" is not a prefix`},
		{"a prefix of 10 000 characters", "acme", http.MethodGet, "/pools/acme/prod/vpc-main?prefix=" + strings.Repeat("1", 10000), "", http.StatusUnprocessableEntity, "error-prefix", `…" is not a prefix`},
		{"an audit filter with a NUL", "ops", http.MethodGet, "/audit?namespace=acme%00", "", http.StatusOK, "no-audit", ""},

		// SQL metacharacters.
		{"SQL as a pool name", "ops", http.MethodPost, "/pools", pool("'; DROP TABLE pools; --", "198.51.100.0/24", "", ""), http.StatusUnprocessableEntity, "error-name", `Name "'; DROP TABLE pools; --" is not a valid name`},
		{"SQL as a subnet name", "acme", http.MethodPost, "/vpcs/acme/prod/main/-/create-subnet", claim("x' OR '1'='1", "10.42.2.0/24", ""), http.StatusUnprocessableEntity, "form-create-subnet error-name", "is not a valid name"},
		{"SQL as a VPC path", "acme", http.MethodGet, "/vpcs/acme/prod/main'%20OR%20'1'='1", "", http.StatusNotFound, "not-found", ""},
		{"SQL as a search", "acme", http.MethodGet, "/pools/acme/prod/vpc-main?q=" + url.QueryEscape("'; DROP TABLE pools; --"), "", http.StatusOK, "allocation-count", "0 matching allocations"},
		{"% as a search", "acme", http.MethodGet, "/pools/acme/prod/vpc-main?q=%25", "", http.StatusOK, "allocation-count", "0 matching allocations"},
		{"_ as a search", "acme", http.MethodGet, "/pools/acme/prod/vpc-main?q=_", "", http.StatusOK, "allocation-count", "0 matching allocations"},
		{"SQL as an audit filter", "ops", http.MethodGet, "/audit?namespace=" + url.QueryEscape("' OR 1=1; --"), "", http.StatusOK, "no-audit", ""},
		{"% as an audit filter", "ops", http.MethodGet, "/audit?namespace=%25", "", http.StatusOK, "no-audit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tn.counts(t)
			start := time.Now()
			res := tn.serve(t, tt.method, tt.target, tt.body, tn.as(tt.user))
			body := string(readBody(t, res))
			if took := time.Since(start); took > callLimit {
				t.Errorf("took %v, more than %v", took, callLimit)
			}
			got, shown := body, true
			if tt.id != "" {
				// "form id": the element id within the form.
				page, id := parseHTML(body), tt.id
				if form, inForm, ok := strings.Cut(tt.id, " "); ok {
					page, id = page.in(form), inForm
				}
				got, shown = page.text(id), page.has(id)
			}
			if res.StatusCode != tt.status || !shown || !strings.Contains(got, tt.want) {
				t.Errorf("%s %s = %d with %s %q, want %d with %q:\n%.3000s", tt.method, tt.target, res.StatusCode, tt.id, got, tt.status, tt.want, body)
			}
			if after := tn.counts(t); !reflect.DeepEqual(before, after) {
				t.Errorf("the request changed the database: %v, then %v", before, after)
			}
		})
	}
}
