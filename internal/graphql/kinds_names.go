package graphql

import (
	"fmt"
	"maps"
	"strings"
	"sync"

	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
)

// An apiName is a name the API gives a kind's part: a type, or a field of
// Query or of Mutation.
type apiName struct {
	// key is unique among every name of the API: "type IpamVLAN",
	// "Query.IpamVLAN", "Mutation.IpamVLANCreate".
	key  string
	name string
	// what names it for messages, "its" standing for the kind's name.
	what string
}

// kindNames are the names the part of the kind k takes.
func kindNames(k schema.Kind) []apiName {
	name := k.FullName()
	typ := func(n, what string) apiName { return apiName{"type " + n, n, what} }
	names := []apiName{
		typ(name, "the type of its objects"),
		typ("Paginated"+name, "the type of its pages"),
		typ("Edged"+name, "the type of its edges"),
		{"Query." + name, name, "its query"},
	}
	if k.Generic {
		return names
	}
	for _, op := range []string{"Create", "Update"} {
		names = append(names, typ(name+op+"Input", "the input of its "+strings.ToLower(op)+" mutation"))
	}
	for _, op := range []string{"Create", "Update", "Delete"} {
		lower := strings.ToLower(op)
		names = append(names, typ(name+op, "the answer of its "+lower+" mutation"),
			apiName{"Mutation." + name + op, name + op, "its " + lower + " mutation"})
	}
	return names
}

// ownNames returns the names the API takes whatever the schema of kinds:
// the IPAM part's, the branches', the schema's, the number pools',
// GraphQL's own. Only the names are read: no resolver runs, so no service is needed.
var ownNames = sync.OnceValues(func() (map[string]string, error) {
	s, err := operatorBuilder(nil, nil, &numbers.Service{}, schema.Schema{}).Build()
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for name := range s.AST().Types {
		names["type "+name] = "a type of the API's own"
	}
	for _, root := range []string{"Query", "Mutation"} {
		for _, f := range s.AST().Types[root].Fields {
			names[root+"."+f.Name] = "a field of the API's own " + root
		}
	}
	return names, nil
})

// CheckSchema refuses a schema of kinds that the GraphQL API cannot serve:
// one of whose kinds would take a name that the API or another kind takes
// already (a kind IpamVLANCreate beside IpamVLAN, whose create mutation
// answers the type IpamVLANCreate; a kind named as one of IPAM's types,
// such as FloatingIP). It returns a *refusal.InvalidError of the field
// schema naming every such kind, or nil. A branch.Service guards every
// schema change with it (branch.SchemaGuard), so that every schema stored
// is one the API serves.
func CheckSchema(kinds schema.Schema) error {
	own, err := ownNames()
	if err != nil {
		return fmt.Errorf("graphql: the schema without kinds does not build: %w", err)
	}
	taken := maps.Clone(own)
	var problems []string
	for _, k := range kinds.Kinds() {
		for _, n := range kindNames(k) {
			if owner, ok := taken[n.key]; ok {
				problems = append(problems, fmt.Sprintf("%s: the GraphQL API would name %s %s, which is already %s; rename the kind",
					k.FullName(), n.what, n.name, owner))
				continue
			}
			taken[n.key] = strings.Replace(n.what, "its", k.FullName()+"'s", 1)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return &refusal.InvalidError{Field: "schema", Message: strings.Join(problems, "\n")}
}
