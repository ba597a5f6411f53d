package graphql

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// An outcome is what a cell of the authorization matrix answers.
type outcome string

const (
	allowed   outcome = "allowed"         // data, no error
	hidden    outcome = "hidden"          // data of nothing: null or []
	notFound  outcome = "NOT_FOUND"       // one error NOT_FOUND
	forbidden outcome = "FORBIDDEN"       // one error FORBIDDEN
	unauthn   outcome = "UNAUTHENTICATED" // 401, one error UNAUTHENTICATED
)

// A target names the objects of one namespace an operation acts on. The
// names are distinct and appear nowhere else, so that an answer can be
// normalised by replacing them.
type target struct {
	ns, vpc, subnet, spare, empty, fip, host, node string
}

// theirs are the objects authzData makes in ns; ghosts are objects that
// do not exist.
func theirs(ns string) target {
	return target{ns: ns, vpc: "vpcx", subnet: "snx", spare: "sparex", empty: "emptyx", fip: "fipx", host: "hostx", node: "nodex"}
}

func ghosts(ns string) target {
	return target{ns: ns, vpc: "gvpc", subnet: "gsn", spare: "gspare", empty: "gempty", fip: "gfip", host: "ghost", node: "gnode"}
}

// authzOp is one operation of the schema (a row of the matrix): what a
// tenant gets in its own namespace and in another tenant's (operators get
// allowed, anonymous and revoked tokens unauthn), and the audit entries an
// allowed call writes ("action kind").
type authzOp struct {
	name           string
	query          string
	vars           func(t target) map[string]any
	owner, foreign outcome
	// public operations act on public pools only: they are run once.
	public bool
	audit  []string
}

// publicAddress is the address of public-zone-a that authzData gives the
// operator's node.
const publicAddress = "203.0.113.6"

var authzOps = []authzOp{
	{name: "pools", query: `query($ns: String) { pools(namespace: $ns) { name namespace } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns} }, owner: allowed, foreign: hidden},
	{name: "pool", query: `query($ns: String, $pool: String!) { pool(namespace: $ns, name: $pool) { name usage { used } allocations { totalCount } } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "pool": "vpc-" + t.vpc} }, owner: allowed, foreign: hidden},
	{name: "vpcs", query: `query($ns: String) { vpcs(namespace: $ns) { name subnets { name } } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns} }, owner: allowed, foreign: hidden},
	{name: "vpc", query: `query($ns: String!, $vpc: String!) { vpc(namespace: $ns, name: $vpc) { name router { address } subnets { name } } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "vpc": t.vpc} }, owner: allowed, foreign: hidden},
	{name: "floatingIps", query: `query($ns: String) { floatingIps(namespace: $ns) { name address } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns} }, owner: allowed, foreign: hidden},
	{name: "previewAllocation", query: `query($ns: String, $pool: String!) { previewAllocation(namespace: $ns, pool: $pool, within: "10.42.1.0/24") }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "pool": "vpc-" + t.vpc} }, owner: allowed, foreign: notFound},

	{name: "createPublicPool", query: `mutation { createPublicPool(input: {name: "newpub", cidr: "198.51.100.0/24"}) { name } }`,
		vars: func(target) map[string]any { return nil }, owner: forbidden, foreign: forbidden, public: true, audit: []string{"create IPAMPool"}},
	{name: "updatePublicPool", query: `mutation { updatePublicPool(input: {name: "spare", zone: "zone-s"}) { zone } }`,
		vars: func(target) map[string]any { return nil }, owner: forbidden, foreign: forbidden, public: true, audit: []string{"update IPAMPool"}},
	{name: "deletePublicPool", query: `mutation { deletePublicPool(name: "spare") }`,
		vars: func(target) map[string]any { return nil }, owner: forbidden, foreign: forbidden, public: true, audit: []string{"delete IPAMPool"}},
	{name: "createVpc", query: `mutation($ns: String!) { createVpc(input: {namespace: $ns, name: "newvpc", cidr: "10.50.0.0/16", zone: "zone-a"}) { name } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns} }, owner: allowed, foreign: forbidden, audit: []string{"create VPC", "allocate IPAllocation"}},
	{name: "deleteVpc", query: `mutation($ns: String!, $empty: String!) { deleteVpc(namespace: $ns, name: $empty) }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "empty": t.empty} }, owner: allowed, foreign: notFound, audit: []string{"delete VPC", "delete IPAMPool"}},
	{name: "createSubnet", query: `mutation($ns: String!, $vpc: String!) { createSubnet(input: {namespace: $ns, vpc: $vpc, name: "newsn", cidr: "10.42.5.0/24"}) { name } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "vpc": t.vpc} }, owner: allowed, foreign: notFound, audit: []string{"create Subnet"}},
	{name: "deleteSubnet", query: `mutation($ns: String!, $vpc: String!, $spare: String!) { deleteSubnet(namespace: $ns, vpc: $vpc, name: $spare) }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "vpc": t.vpc, "spare": t.spare} }, owner: allowed, foreign: notFound, audit: []string{"delete Subnet"}},
	{name: "attachInterface", query: `mutation($ns: String!, $vpc: String!, $subnet: String!) { attachInterface(input: {namespace: $ns, vpc: $vpc, subnet: $subnet, vm: {uid: "vm-new", hostname: "newhost"}, nic: 0}) { address } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "vpc": t.vpc, "subnet": t.subnet} }, owner: allowed, foreign: notFound, audit: []string{"allocate IPAllocation"}},
	{name: "detachInterface", query: `mutation($ns: String!, $vpc: String!, $host: String!) { detachInterface(input: {namespace: $ns, vpc: $vpc, vm: {uid: "vm-x", hostname: $host}, nic: 0}) }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "vpc": t.vpc, "host": t.host} }, owner: allowed, foreign: notFound, audit: []string{"release IPAllocation"}},
	{name: "attachNode", query: `mutation($ns: String!, $vpc: String!, $subnet: String!) { attachNode(input: {namespace: $ns, vpc: $vpc, subnet: $subnet, node: {uid: "node-new", name: "newnode"}}) { address } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "vpc": t.vpc, "subnet": t.subnet} }, owner: allowed, foreign: notFound, audit: []string{"allocate IPAllocation"}},
	{name: "claimFloatingIp", query: `mutation($ns: String!) { claimFloatingIp(input: {namespace: $ns, name: "newfip", zone: "zone-a"}) { address } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns} }, owner: allowed, foreign: forbidden, audit: []string{"create FloatingIP", "allocate IPAllocation"}},
	{name: "releaseFloatingIp", query: `mutation($ns: String!, $fip: String!) { releaseFloatingIp(namespace: $ns, name: $fip) }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "fip": t.fip} }, owner: allowed, foreign: notFound, audit: []string{"delete FloatingIP", "release IPAllocation"}},
	{name: "allocate", query: `mutation($ns: String, $pool: String!) { allocate(input: {namespace: $ns, pool: $pool, within: "10.42.9.0/24", owner: {kind: "VirtualMachine", uid: "vm-9", name: "host9/0"}}) { address } }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "pool": "vpc-" + t.vpc} }, owner: allowed, foreign: notFound, audit: []string{"allocate IPAllocation"}},
	{name: "allocate in a public pool", query: `mutation { allocate(input: {pool: "public-zone-a", owner: {kind: "Node", uid: "node-9", name: "edge"}, ownerNamespace: "acme/prod"}) { address } }`,
		vars: func(target) map[string]any { return nil }, owner: forbidden, foreign: forbidden, public: true, audit: []string{"allocate IPAllocation"}},
	{name: "release", query: `mutation($ns: String, $pool: String!) { release(input: {namespace: $ns, pool: $pool, address: "10.42.1.3"}) }`,
		vars: func(t target) map[string]any { return map[string]any{"ns": t.ns, "pool": "vpc-" + t.vpc} }, owner: allowed, foreign: notFound, audit: []string{"release IPAllocation"}},
	{name: "release in a public pool", query: `mutation { release(input: {pool: "public-zone-a", address: "` + publicAddress + `"}) }`,
		vars: func(target) map[string]any { return nil }, owner: forbidden, foreign: forbidden, public: true, audit: []string{"release IPAllocation"}},
}

// The tenants of the matrix, sharing the prefix "acme", and the namespace
// of each one's objects.
var authzTenants = map[string]string{"acme": "acme/prod", "corp": "acme-corp/prod"}

// authzData makes, as the operator system, the public pools public-zone-a
// (zone-a) and spare, and in acme/prod and acme-corp/prod the objects of
// theirs: VPC vpcx (zone-a) with subnets snx (VM hostx/0 at 10.42.1.2,
// node nodex at 10.42.1.3) and sparex, VPC emptyx, floating IP fipx; and
// the operator's node at publicAddress.
func authzData(ctx context.Context, svc *ipam.Service) error {
	sys := auth.System
	var err error
	must := func(_ any, e error) {
		if err == nil {
			err = e
		}
	}
	must(svc.CreatePublicPool(ctx, sys, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}))
	must(svc.CreatePublicPool(ctx, sys, ipam.CreatePublicPoolInput{Name: "spare", CIDR: "192.0.2.0/24"}))
	for _, ns := range []string{"acme/prod", "acme-corp/prod"} {
		t := theirs(ns)
		must(svc.CreateVPC(ctx, sys, ipam.CreateVPCInput{Namespace: ns, Name: t.vpc, CIDR: "10.42.0.0/16", Zone: "zone-a"}))
		must(svc.CreateVPC(ctx, sys, ipam.CreateVPCInput{Namespace: ns, Name: t.empty, CIDR: "10.43.0.0/16"}))
		must(svc.CreateSubnet(ctx, sys, ipam.CreateSubnetInput{Namespace: ns, VPC: t.vpc, Name: t.subnet, CIDR: "10.42.1.0/24"}))
		must(svc.CreateSubnet(ctx, sys, ipam.CreateSubnetInput{Namespace: ns, VPC: t.vpc, Name: t.spare, CIDR: "10.42.9.0/24"}))
		must(svc.AttachInterface(ctx, sys, ipam.AttachInterfaceInput{Namespace: ns, VPC: t.vpc, Subnet: t.subnet, VM: ipam.VMRef{UID: "vm-x", Hostname: t.host}}))
		must(svc.AttachNode(ctx, sys, ipam.AttachNodeInput{Namespace: ns, VPC: t.vpc, Subnet: t.subnet, Node: ipam.NodeRef{UID: "node-x", Name: t.node}}))
		must(svc.ClaimFloatingIP(ctx, sys, ipam.ClaimFloatingIPInput{Namespace: ns, Name: t.fip, Zone: "zone-a"}))
	}
	a, aerr := svc.Allocate(ctx, sys, ipam.AllocateInput{Pool: "public-zone-a", Owner: ipam.Owner{Kind: "Node", UID: "node-op", Name: "edge"}, OwnerNamespace: "acme/prod"})
	must(a, aerr)
	if err == nil && a.Address.String() != publicAddress {
		err = fmt.Errorf("the operator's node got %s, want %s", a.Address, publicAddress)
	}
	return err
}

// authzEnv is a handler over authzData that authenticates real tokens, and
// the tokens of op (an operator), acme, corp, and revoked (an operator's,
// revoked).
type authzEnv struct {
	*env
	tokens map[string]string
}

func newAuthzEnv(t *testing.T) *authzEnv {
	t.Helper()
	e := newEnv(t)
	if err := authzData(t.Context(), e.svc); err != nil {
		t.Fatal(err)
	}
	users := auth.NewService(e.db)
	h, err := NewHandler(e.svc, e.pools, tokenAuthenticate(users), e.logger)
	if err != nil {
		t.Fatal(err)
	}
	e.handler = h.(*handler)
	a := &authzEnv{env: e, tokens: map[string]string{}}
	for _, u := range []struct {
		name, role string
		namespaces []string
	}{{"op", "operator", nil}, {"acme", "tenant", []string{"acme/*"}}, {"corp", "tenant", []string{"acme-corp/*"}}, {"revoked", "operator", nil}} {
		if _, err := store.CreateUser(t.Context(), e.db, "system", store.UserRow{Name: u.name, Role: u.role, Namespaces: u.namespaces, PasswordHash: "unused"}); err != nil {
			t.Fatal(err)
		}
		if a.tokens[u.name], err = users.CreateToken(t.Context(), auth.System, u.name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := users.RevokeTokens(t.Context(), auth.System, "revoked"); err != nil {
		t.Fatal(err)
	}
	return a
}

// tokenAuthenticate authenticates bearer tokens with users, as the
// console's server does.
func tokenAuthenticate(users *auth.Service) Authenticate {
	return func(r *http.Request) (auth.Actor, error) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return auth.Actor{}, fmt.Errorf("%w: no bearer token", ErrUnauthenticated)
		}
		a, err := users.AuthenticateToken(r.Context(), token)
		if errors.Is(err, auth.ErrUnauthenticated) {
			return auth.Actor{}, fmt.Errorf("%w: the token is unknown or revoked", ErrUnauthenticated)
		}
		return a, err
	}
}

// call sends op against tg as who ("" for no one) and returns the answer.
func (a *authzEnv) call(t *testing.T, who string, op authzOp, tg target) result {
	t.Helper()
	body, err := json.Marshal(map[string]any{"query": op.query, "variables": op.vars(tg)})
	if err != nil {
		t.Fatal(err)
	}
	return a.with(t).post(a.tokens[who], "application/json", strings.NewReader(string(body)))
}

// outcomeOf classifies an answer.
func outcomeOf(res result) outcome {
	switch {
	case res.status == http.StatusUnauthorized && len(res.Errors) == 1 && res.Errors[0].Extensions.Code == codeUnauthenticated:
		return unauthn
	case res.status != http.StatusOK:
		return outcome(fmt.Sprintf("status %d", res.status))
	case len(res.Errors) == 1 && (res.Errors[0].Extensions.Code == codeNotFound || res.Errors[0].Extensions.Code == codeForbidden):
		return outcome(res.Errors[0].Extensions.Code)
	case len(res.Errors) > 0:
		return outcome("errors " + string(res.body))
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(res.Data, &data) != nil || len(data) != 1 {
		return outcome("data " + string(res.Data))
	}
	for _, v := range data {
		if s := string(v); s == "null" || s == "[]" {
			return hidden
		}
	}
	return allowed
}

// auditSince returns the entries written after the entry id, as "action
// kind" in order, and their actors.
func auditSince(t *testing.T, db *store.DB, id int64) (entries, actors []string) {
	t.Helper()
	got, err := store.AuditEntries(t.Context(), db, store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		if e.ID > id {
			entries = append(entries, e.Action+" "+e.ObjectKind)
			actors = append(actors, e.Actor)
		}
	}
	sort.Strings(entries)
	return entries, slices.Compact(actors)
}

func lastAuditID(t *testing.T, db *store.DB) int64 {
	t.Helper()
	var id int64
	if err := db.GetContext(t.Context(), &id, `SELECT coalesce(max(id), 0) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	return id
}

// normalised returns body with each string value of vars replaced by its
// name, longest first: the answers about two targets compare equal when
// they differ by the targets' names only.
func normalised(body []byte, vars map[string]any) string {
	type kv struct{ k, v string }
	var subs []kv
	for k, v := range vars {
		if s, ok := v.(string); ok {
			subs = append(subs, kv{k, s})
		}
	}
	sort.Slice(subs, func(i, j int) bool { return len(subs[i].v) > len(subs[j].v) })
	out := string(body)
	for _, s := range subs {
		out = strings.ReplaceAll(out, s.v, "<"+s.k+">")
	}
	return out
}

// TestAuthorizationMatrix runs every operation of the schema against the
// objects of acme (acme/*) and of corp (acme-corp/*) as no one, a revoked
// operator's token, the owner, the other tenant and an operator. Each cell
// answers as authzOp says; a refused call changes nothing and writes no
// audit entry; an allowed mutation writes exactly its audit entries, as
// its caller. The other tenant's answer about an object that exists is
// the answer about one that does not, in the same namespace or in one
// that holds nothing, but for the names.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	for _, op := range authzOps {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			shared := newAuthzEnv(t)
			for tenant, ns := range authzTenants {
				if op.public && tenant != "acme" {
					continue
				}
				tg := theirs(ns)
				other := "corp"
				if tenant == "corp" {
					other = "acme"
				}
				cells := []struct {
					who  string
					want outcome
				}{{"", unauthn}, {"revoked", unauthn}, {other, op.foreign}, {tenant, op.owner}, {"op", allowed}}
				for _, cell := range cells {
					name := fmt.Sprintf("%s as %s on %s", op.name, valueOr(cell.who, "anonymous"), ns)
					a := shared
					if cell.want == allowed && op.audit != nil {
						a = newAuthzEnv(t)
					}
					before, lastID := a.with(t).counts(), lastAuditID(t, a.db)
					res := a.call(t, cell.who, op, tg)
					if got := outcomeOf(res); got != cell.want {
						t.Errorf("%s: %s, want %s: %s", name, got, cell.want, res.body)
						continue
					}
					entries, actors := auditSince(t, a.db, lastID)
					if cell.want == allowed && op.audit != nil {
						want := slices.Sorted(slices.Values(op.audit))
						if !slices.Equal(entries, want) || !slices.Equal(actors, []string{cell.who}) {
							t.Errorf("%s wrote the audit entries %v by %v, want %v by %s", name, entries, actors, want, cell.who)
						}
						continue
					}
					if after := a.with(t).counts(); !reflect.DeepEqual(before, after) || len(entries) > 0 {
						t.Errorf("%s (%s) changed the database: %v, then %v; audit entries %v", name, cell.want, before, after, entries)
					}
				}
				if op.public {
					continue
				}
				// The other tenant cannot tell this object from one that
				// does not exist.
				theirsAnswer := shared.call(t, other, op, tg)
				for _, missing := range []target{ghosts(ns), theirs(strings.Replace(ns, "prod", "void", 1))} {
					got := shared.call(t, other, op, missing)
					if got.status != theirsAnswer.status || normalised(got.body, op.vars(missing)) != normalised(theirsAnswer.body, op.vars(tg)) {
						t.Errorf("%s as %s: the answer about %s/%s\n%s\ndiffers from the answer about %s/%s\n%s",
							op.name, other, ns, tg.vpc, theirsAnswer.body, missing.ns, missing.vpc, got.body)
					}
				}
			}
		})
	}
}

func valueOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
