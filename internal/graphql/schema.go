package graphql

import (
	"context"
	"net/netip"
	"sync/atomic"
	"time"

	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
)

// A family is a part of the schema: the types of one family of objects,
// their queries and mutations, and their resolvers over the service.
type family func(b *engine.Builder, svc *ipam.Service)

// families are the parts of the schema of SPEC §5, one file each.
var families = []family{addPools, addVPCs, addAllocations, addFloatingIPs}

// newSchema builds the schema over svc from its families.
func newSchema(svc *ipam.Service) (*engine.Schema, error) {
	b := engine.NewBuilder()
	for _, add := range families {
		add(b, svc)
	}
	return b.Build()
}

// schemas holds the built schema. A schema is immutable once built: a
// request reads the current one once and uses it throughout, so a schema
// built anew (a new schema of kinds) replaces the old one at once, without
// a restart, and no request ever sees half of one.
type schemas struct {
	current atomic.Pointer[engine.Schema]
	build   func() (*engine.Schema, error)
}

// rebuild builds the schema anew and, when it builds, serves it; when it
// does not, the current one stays.
func (s *schemas) rebuild() error {
	schema, err := s.build()
	if err != nil {
		return err
	}
	s.current.Store(schema)
	return nil
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
