package graphql

import (
	"context"
	"net/netip"
	"time"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
)

// A family is a part of the schema: the types of one family of objects,
// their queries and mutations, and their resolvers over the service.
type family func(b *engine.Builder, svc *ipam.Service)

// families are the parts of the IPAM schema, one file each.
var families = []family{addPools, addVPCs, addAllocations, addFloatingIPs, addQuotas, addSearch, addDelegations}

// newIPAMSchema builds the schema tenants are served: the IPAM part, over
// svc, from its families. Tenants see no branch, schema of kinds or
// object of kinds: to them, those are absent.
func newIPAMSchema(svc *ipam.Service) (*engine.Schema, error) {
	b := engine.NewBuilder()
	for _, add := range families {
		add(b, svc)
	}
	return b.Build()
}

// newOperatorSchema builds the schema operators are served on a branch
// whose schema of kinds is kinds: the IPAM part, the branches, the schema
// of kinds, the number pools, and the types, queries
// and mutations generated from kinds, which act on the branch of the
// request through branches (and pools, for from_pool). A schema of kinds
// whose names collide with the API's (CheckSchema) does not build.
func newOperatorSchema(svc *ipam.Service, branches *branch.Service, pools *numbers.Service, kinds schema.Schema) (*engine.Schema, error) {
	if err := CheckSchema(kinds); err != nil {
		return nil, err
	}
	return operatorBuilder(svc, branches, pools, kinds).Build()
}

// operatorBuilder assembles the parts of the schema operators are served.
func operatorBuilder(svc *ipam.Service, branches *branch.Service, pools *numbers.Service, kinds schema.Schema) *engine.Builder {
	b := engine.NewBuilder()
	for _, add := range families {
		add(b, svc)
	}
	addBranches(b, branches)
	addSchemaOfKinds(b, branches)
	addKindsCommon(b)
	addNumberPools(b, pools)
	addKinds(b, branches, pools, kinds)
	return b
}

// resolverFn resolves a field for the request's actor; its errors are the
// domain's and are turned into coded errors by resolve.
type resolverFn func(ctx context.Context, st *requestState, p engine.Params) (any, error)

// resolve is the resolver that calls fn with the request's state.
func resolve(fn resolverFn) engine.Resolver {
	return func(ctx context.Context, p engine.Params) (any, error) {
		st := stateOf(ctx)
		v, err := fn(ctx, st, p)
		if err != nil {
			return nil, st.domainError(ctx, err)
		}
		return v, nil
	}
}

// properties sets the resolvers of fields of typ whose source is a T,
// each read by its function.
func properties[T any](b *engine.Builder, typ string, fields map[string]func(T) any) {
	for name, read := range fields {
		b.Resolve(typ, name, func(_ context.Context, p engine.Params) (any, error) {
			return read(p.Source.(T)), nil
		})
	}
}

// done is the answer of a mutation that returns true when it succeeded.
func done(err error) (any, error) { return err == nil, err }

// optional is s, or null when empty.
func optional(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// addr is a, or null when it is the zero Addr.
func addr(a netip.Addr) any {
	if !a.IsValid() {
		return nil
	}
	return a.String()
}

// prefix is p, or null when it is the zero Prefix.
func prefix(p netip.Prefix) any {
	if !p.IsValid() {
		return nil
	}
	return p.String()
}

// timestamp is t in RFC 3339, or null when zero.
func timestamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func stringArg(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

func intArg(args map[string]any, name string) int {
	n, _ := args[name].(int)
	return n
}

// stringsArg reads a list of strings; nil when not given.
func stringsArg(args map[string]any, name string) []string {
	list, ok := args[name].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// objectArg reads an input object; nil when not given.
func objectArg(args map[string]any, name string) map[string]any {
	m, _ := args[name].(map[string]any)
	return m
}

// ptr returns a pointer to v: an input field given, maybe null.
func ptr[T any](v T) *T { return &v }
