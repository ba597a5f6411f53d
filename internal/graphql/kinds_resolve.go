package graphql

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
)

// The resolvers of the part generated from a schema of kinds. Every one
// acts on the branch of the request (requestState.branch) through
// branch.Service: objects are branch.Objects, pages branch.Pages.

// addQuery adds the query of the kind: a page of its objects.
func (p *kindsPart) addQuery(k schema.Kind) {
	name := k.FullName()
	what := "The objects of " + name
	if k.Generic {
		what += " (of the nodes that inherit from it)"
	}
	description := what + " on the branch addressed, in id order: those of ids, whose attributes hold the values given (<attribute>__value) and whose relationships point at one of the ids given (<relationship>__ids);" +
		strings.TrimSuffix(strings.TrimPrefix(pageDescription, " In id order:"), ".") + "."
	p.b.Query(gqlString(description)+"\n"+name+"("+p.filterArguments(name)+"): Paginated"+name+"!",
		resolve(func(ctx context.Context, st *requestState, prm engine.Params) (any, error) {
			limit, offset, err := limitOffset(prm.Args)
			if err != nil {
				return nil, err
			}
			return p.branches.Objects(ctx, st.actor, st.branch, name, objectFilter(prm.Args), limit, offset)
		}))
}

// objectFilter reads the filters of a kind's query: ids,
// <attribute>__value and <relationship>__ids; null is no filter.
func objectFilter(args map[string]any) branch.Filter {
	f := branch.Filter{IDs: stringsArg(args, "ids")}
	for arg, v := range args {
		if v == nil {
			continue
		}
		if name, ok := strings.CutSuffix(arg, "__value"); ok {
			if f.Values == nil {
				f.Values = map[string]any{}
			}
			f.Values[name] = plainJSON(v)
		} else if name, ok := strings.CutSuffix(arg, "__ids"); ok {
			if f.Peers == nil {
				f.Peers = map[string][]string{}
			}
			f.Peers[name] = stringsArg(args, arg)
		}
	}
	return f
}

// limitOffset reads a page's limit and offset; a limit not given is 0, the
// longest page.
func limitOffset(args map[string]any) (limit, offset int, err error) {
	if v, ok := args["limit"].(int); ok {
		if v < 1 || v > branch.MaxPage {
			return 0, 0, invalidField("limit", "limit must be from 1 to %d, got %d", branch.MaxPage, v)
		}
		limit = v
	}
	return limit, intArg(args, "offset"), nil
}

// addListResolvers adds the resolvers of the kind's page and edge.
func (p *kindsPart) addListResolvers(name string) {
	properties(p.b, "Paginated"+name, map[string]func(branch.Page) any{
		"count": func(pg branch.Page) any { return pg.Count },
		"edges": func(pg branch.Page) any { return pg.Objects },
	})
	p.b.Resolve("Edged"+name, "node", func(_ context.Context, prm engine.Params) (any, error) { return prm.Source, nil })
}

// addObjectResolvers adds the resolvers of the fields of a node's objects.
func (p *kindsPart) addObjectResolvers(name string) {
	fields := map[string]func(branch.Object) any{
		"id":            func(o branch.Object) any { return o.ID },
		"display_label": func(o branch.Object) any { return o.DisplayLabel },
	}
	for _, a := range p.kinds.Attributes(name) {
		fields[a.Name] = func(o branch.Object) any { return attributeValue{o.Attributes[a.Name]} }
	}
	properties(p.b, name, fields)
	for _, r := range p.kinds.Relationships(name) {
		if r.Cardinality == schema.One {
			p.b.Resolve(name, r.Name, p.peer(r.Name))
		} else {
			p.b.Resolve(name, r.Name, p.peers(r.Name))
		}
	}
}

// peer resolves a relationship of cardinality one: its peer, or null.
func (p *kindsPart) peer(rel string) engine.Resolver {
	return resolve(func(ctx context.Context, st *requestState, prm engine.Params) (any, error) {
		ids := prm.Source.(branch.Object).Relationships[rel]
		if len(ids) == 0 {
			return nil, nil
		}
		o, err := p.branches.Object(ctx, st.actor, st.branch, ids[0])
		if errors.Is(err, refusal.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return o, nil
	})
}

// peers resolves a relationship of cardinality many: a page of its peers.
func (p *kindsPart) peers(rel string) engine.Resolver {
	return resolve(func(ctx context.Context, st *requestState, prm engine.Params) (any, error) {
		limit, offset, err := limitOffset(prm.Args)
		if err != nil {
			return nil, err
		}
		return p.branches.Peers(ctx, st.actor, st.branch, prm.Source.(branch.Object), rel, limit, offset)
	})
}

// An answer is what a mutation of an object answers: ok, and the object.
type answer struct{ object branch.Object }

// addMutations adds a node's create, update and delete.
func (p *kindsPart) addMutations(k schema.Kind) {
	name := k.FullName()
	in := inputShape{}
	for _, a := range p.kinds.Attributes(name) {
		in.attributes = append(in.attributes, a.Name)
	}
	for _, r := range p.kinds.Relationships(name) {
		in.relationships = append(in.relationships, r.Name)
	}
	data := "(data: " + name + "CreateInput!)"
	if len(in.attributes)+len(in.relationships) == 0 {
		data = ""
	}
	p.b.Mutation(gqlString("Creates an object of "+name+" on the branch addressed.")+"\n"+name+"Create"+data+": "+name+"Create", p.create(name, in))
	p.b.Mutation(gqlString("Changes an object of "+name+" on the branch addressed.")+"\n"+name+"Update(data: "+name+"UpdateInput!): "+name+"Update", p.update(name, in))
	p.b.Mutation(gqlString("Deletes an object of "+name+" on the branch addressed; refused while a required relationship of another object points at it.")+"\n"+name+"Delete(data: DeleteInput!): "+name+"Delete", p.delete(name))
	for _, op := range []string{"Create", "Update", "Delete"} {
		properties(p.b, name+op, map[string]func(answer) any{
			"ok":     func(answer) any { return true },
			"object": func(a answer) any { return a.object },
		})
	}
}

// create creates an object of the kind name; the values asked from a pool
// are claimed in the write's transaction.
func (p *kindsPart) create(name string, in inputShape) engine.Resolver {
	return resolve(func(ctx context.Context, st *requestState, prm engine.Params) (any, error) {
		values, from := in.read(objectArg(prm.Args, "data"))
		var o branch.Object
		var err error
		if len(from) > 0 {
			o, err = p.pools.CreateObject(ctx, st.actor, st.branch, name, values, from)
		} else {
			o, err = p.branches.CreateObject(ctx, st.actor, st.branch, name, values)
		}
		if err != nil {
			return nil, err
		}
		return answer{o}, nil
	})
}

// update changes an object of the kind name; the values asked from a pool
// are claimed in the write's transaction.
func (p *kindsPart) update(name string, in inputShape) engine.Resolver {
	return resolve(func(ctx context.Context, st *requestState, prm engine.Params) (any, error) {
		data := objectArg(prm.Args, "data")
		id := stringArg(data, "id")
		if _, err := p.objectOf(ctx, st, name, id); err != nil {
			return nil, err
		}
		values, from := in.read(data)
		var o branch.Object
		var err error
		if len(from) > 0 {
			o, err = p.pools.UpdateObject(ctx, st.actor, st.branch, id, values, from)
		} else {
			o, err = p.branches.UpdateObject(ctx, st.actor, st.branch, id, values)
		}
		if err != nil {
			return nil, err
		}
		return answer{o}, nil
	})
}

func (p *kindsPart) delete(name string) engine.Resolver {
	return resolve(func(ctx context.Context, st *requestState, prm engine.Params) (any, error) {
		id := stringArg(objectArg(prm.Args, "data"), "id")
		if _, err := p.objectOf(ctx, st, name, id); err != nil {
			return nil, err
		}
		o, err := p.branches.DeleteObject(ctx, st.actor, st.branch, id)
		if err != nil {
			return nil, err
		}
		return answer{o}, nil
	})
}

// objectOf returns the object id of the kind name on the request's branch:
// the mutations of a kind change its objects only.
func (p *kindsPart) objectOf(ctx context.Context, st *requestState, name, id string) (branch.Object, error) {
	o, err := p.branches.Object(ctx, st.actor, st.branch, id)
	if err != nil {
		return branch.Object{}, err
	}
	if o.Kind != name {
		return branch.Object{}, &refusal.NotFoundError{What: fmt.Sprintf("%s %s on branch %s", name, id, st.branch)}
	}
	return o, nil
}

// An inputShape is the elements of a node's create and update inputs.
type inputShape struct {
	attributes, relationships []string
}

// read turns the input of a create or an update into what it sets, and
// the values it asks from pools: an attribute given {value} takes the
// value (null removes it); given null, it is removed; given {} or not at
// all, it stays. A Number attribute given {from_pool} asks the pool for a
// value, which the hook gives when the write leaves it none: {value: null,
// from_pool} drops the number it holds for one of the pool's. A
// relationship given {id} or [{id}] takes those peers, given null none.
func (s inputShape) read(data map[string]any) (branch.ObjectInput, []numbers.FromPool) {
	in := branch.ObjectInput{Attributes: map[string]any{}, Relationships: map[string][]string{}}
	var from []numbers.FromPool
	for _, name := range s.attributes {
		v, given := data[name]
		if !given {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			in.Attributes[name] = nil
			continue
		}
		if value, ok := m["value"]; ok {
			in.Attributes[name] = plainJSON(value)
		}
		if pool := objectArg(m, "from_pool"); pool != nil {
			from = append(from, numbers.FromPool{Attribute: name, Pool: stringArg(pool, "id"), Identifier: stringArg(pool, "identifier")})
		}
	}
	for _, name := range s.relationships {
		if v, given := data[name]; given {
			in.Relationships[name] = peerIDs(v)
		}
	}
	return in, from
}

// peerIDs reads the ids of {id} or [{id}]; null is none.
func peerIDs(v any) []string {
	ids := []string{}
	switch v := v.(type) {
	case map[string]any:
		ids = append(ids, stringArg(v, "id"))
	case []any:
		for _, item := range v {
			if m, ok := item.(map[string]any); ok {
				ids = append(ids, stringArg(m, "id"))
			}
		}
	}
	return ids
}

// plainJSON returns v, a value of the request, with every list non-nil:
// gqlparser reads the literal [] as a nil list, which is JSON's null.
func plainJSON(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = plainJSON(item)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			out[k] = plainJSON(item)
		}
		return out
	}
	return v
}
