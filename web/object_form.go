package web

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/views"
)

// kindPage is what a page of a kind's objects starts from: its frame, the
// branch in use, its schema and the kind named by the path.
type kindPage struct {
	shell  views.Shell
	branch string
	schema schema.Schema
	kind   schema.Kind
}

// kindPageOf returns the kindPage of the request, titled by title of the
// kind's label (views.KindLabel), or answers it (the 404 page for a
// tenant, an unknown branch or kind) and returns false.
func (s *Server) kindPageOf(w http.ResponseWriter, r *http.Request, title func(kind string) string) (kindPage, bool) {
	name := r.PathValue("kind")
	sh, branchName, err := s.branchShell(r, title(name))
	if err != nil {
		s.failed(w, r, err)
		return kindPage{}, false
	}
	sc, err := s.branches.Schema(r.Context(), branchName)
	if err != nil {
		s.failed(w, r, err)
		return kindPage{}, false
	}
	k, ok := sc.Kind(name)
	if !ok {
		s.notFound(w, r)
		return kindPage{}, false
	}
	sh.Title = title(views.KindLabel(k))
	return kindPage{shell: sh, branch: branchName, schema: sc, kind: k}, true
}

// formatValue writes an attribute's value as a cell or an input shows it.
func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// fieldType is the input of an attribute of the kind.
func fieldType(k schema.AttributeKind) views.ObjectFieldType {
	switch k {
	case schema.Number:
		return views.FieldNumber
	case schema.Boolean:
		return views.FieldBoolean
	case schema.Dropdown:
		return views.FieldDropdown
	case schema.List:
		return views.FieldList
	case schema.JSON, schema.Any:
		return views.FieldJSON
	}
	return views.FieldText
}

// objectFormProps returns the object form of the kind on the branch,
// filled with o's values (nil for a new object), its numbers predicted:
// its fields by their labels, the required ones marked, in
// predictionOrder.
func (s *Server) objectFormProps(ctx context.Context, actor auth.Actor, kp kindPage, o *branch.Object) (views.ObjectFormPageProps, error) {
	kind := kp.kind.FullName()
	p := views.ObjectFormPageProps{Shell: kp.shell, Branch: kp.branch, Kind: kind, KindLabel: views.KindLabel(kp.kind)}
	pools, err := s.poolsOf(ctx, actor, kp.schema, kp.kind)
	if err != nil {
		return p, err
	}
	for _, a := range kp.schema.Attributes(kind) {
		f := views.ObjectField{Name: a.Name, Label: views.AttributeLabel(a), Type: fieldType(a.Kind), Required: !a.Optional && a.Kind != schema.Boolean}
		switch {
		case o != nil:
			f.Value = formatValue(o.Attributes[a.Name])
		case a.DefaultValue != "":
			var v any
			if json.Unmarshal([]byte(a.DefaultValue), &v) == nil {
				f.Value = formatValue(v)
				if _, ok := v.(float64); ok {
					f.Value = a.DefaultValue
				}
			}
		}
		for _, c := range a.Choices {
			f.Choices = append(f.Choices, views.Choice{Value: c, Label: c})
		}
		for _, pool := range pools[a.Name] {
			f.Pools = append(f.Pools, views.Choice{Value: pool.ID, Label: pool.Name})
		}
		// A new object takes its number from the pool unless told otherwise.
		if len(f.Pools) > 0 && o == nil {
			f.FromPool, f.Pool = true, f.Pools[0].Value
		}
		p.Fields = append(p.Fields, f)
	}
	for _, rel := range kp.schema.Relationships(kind) {
		if rel.Cardinality != schema.One {
			continue
		}
		f := views.ObjectField{Name: rel.Name, Label: views.RelationshipLabel(rel), Type: views.FieldRelationship, Required: !rel.Optional}
		if o != nil && len(o.Relationships[rel.Name]) > 0 {
			f.Value = o.Relationships[rel.Name][0]
		}
		peers, err := s.branches.Objects(ctx, actor, kp.branch, rel.Peer, branch.Filter{}, branch.MaxPage, 0)
		if err != nil {
			return p, err
		}
		for _, peer := range peers.Objects {
			f.Choices = append(f.Choices, views.Choice{Value: peer.ID, Label: peer.DisplayLabel})
		}
		slices.SortStableFunc(f.Choices, func(a, b views.Choice) int { return strings.Compare(a.Label, b.Label) })
		p.Fields = append(p.Fields, f)
	}
	p.Fields = predictionOrder(p.Fields, pools)
	if len(pools) > 0 {
		labels := make(map[string]string, len(p.Fields))
		for _, f := range p.Fields {
			labels[f.Name] = f.Label
		}
		if p.Pools, err = s.poolsJSON(ctx, actor, pools, labels); err != nil {
			return p, err
		}
	}
	return p, predictNumbers(&p)
}

// predictionOrder orders the object form's fields so that what a
// prediction depends on comes first: before a Number attribute that number
// pools allocate come the fields their scopes name (the site of VLAN IDs
// per site, whose value chooses the division and so the number the page
// predicts), in the schema's order, unless they come before it already.
// The others keep the schema's order: the attributes, inherited first,
// then the relationships of cardinality one. pools are the kind's by the
// attribute they allocate.
func predictionOrder(fields []views.ObjectField, pools map[string][]numbers.Pool) []views.ObjectField {
	index := make(map[string]int, len(fields))
	for i, f := range fields {
		index[f.Name] = i
	}
	placed := make([]bool, len(fields))
	out := make([]views.ObjectField, 0, len(fields))
	var place func(i int)
	place = func(i int) {
		if placed[i] {
			return
		}
		placed[i] = true
		var scope []int
		for _, p := range pools[fields[i].Name] {
			for _, name := range p.ScopeNames() {
				if j, ok := index[name]; ok {
					scope = append(scope, j)
				}
			}
		}
		slices.Sort(scope)
		for _, j := range scope {
			place(j)
		}
		out = append(out, fields[i])
	}
	for i := range fields {
		place(i)
	}
	return out
}

// poolsOf returns the number pools of the kind (or of a generic it
// inherits from) by the attribute they allocate.
func (s *Server) poolsOf(ctx context.Context, actor auth.Actor, sc schema.Schema, k schema.Kind) (map[string][]numbers.Pool, error) {
	if k.Generic {
		return nil, nil
	}
	all, err := s.numbers.Pools(ctx, actor, numbers.PoolFilter{}, 0, 0)
	if err != nil {
		return nil, err
	}
	kinds := append([]string{k.FullName()}, k.InheritFrom...)
	out := map[string][]numbers.Pool{}
	for _, p := range all.Pools {
		if a, ok := sc.Attribute(k.FullName(), p.Attribute); ok && a.Kind == schema.Number && slices.Contains(kinds, p.Kind) {
			out[p.Attribute] = append(out[p.Attribute], p)
		}
	}
	return out, nil
}

// formPool is a pool as the object form's script reads it.
type formPool struct {
	ID        string                   `json:"id"`
	Name      string                   `json:"name"`
	Attribute string                   `json:"attribute"`
	Ranges    []candidates.NumberRange `json:"ranges"`
	// Scope are the names of the form's inputs that choose the division,
	// ScopeLabels their labels, which the form says they are by.
	Scope       []string       `json:"scope"`
	ScopeLabels []string       `json:"scopeLabels"`
	Divisions   []formDivision `json:"divisions"`
}

// formDivision is a division of a pool that holds numbers: its scope
// elements' values, in the scope's order, and its taken numbers in
// NumberSet's compact form ("1-4000,4010").
type formDivision struct {
	Values []string `json:"values"`
	Taken  string   `json:"taken"`
}

// poolsJSON returns the JSON of the pools, with their divisions' taken
// numbers (on every branch: a number a pool gave is reserved on all), and
// their scope elements' labels (labels, by the form's fields' names; an
// element the form lacks by its name).
func (s *Server) poolsJSON(ctx context.Context, actor auth.Actor, pools map[string][]numbers.Pool, labels map[string]string) (string, error) {
	var out []formPool
	for _, attr := range slices.Sorted(maps.Keys(pools)) {
		for _, p := range pools[attr] {
			fp := formPool{ID: p.ID, Name: p.Name, Attribute: attr, Scope: p.ScopeNames(), Divisions: []formDivision{}}
			for _, name := range fp.Scope {
				fp.ScopeLabels = append(fp.ScopeLabels, cmp.Or(labels[name], name))
			}
			for _, r := range p.Ranges {
				fp.Ranges = append(fp.Ranges, candidates.NumberRange{Start: r.Start, End: r.End, Weight: r.Weight})
			}
			taken := map[string][]int64{}
			var order []string
			for offset := 0; ; offset += branch.MaxPage {
				page, err := s.numbers.Allocations(ctx, actor, p.ID, nil, branch.MaxPage, offset)
				if err != nil {
					return "", err
				}
				for _, a := range page.Allocations {
					key := strings.Join(divisionValues(fp.Scope, a.Division), "\x00")
					if _, ok := taken[key]; !ok {
						order = append(order, key)
					}
					taken[key] = append(taken[key], a.Value)
				}
				if offset+branch.MaxPage >= page.Count {
					break
				}
			}
			for _, key := range order {
				values := []string{}
				if key != "" || len(fp.Scope) > 0 {
					values = strings.Split(key, "\x00")
				}
				fp.Divisions = append(fp.Divisions, formDivision{Values: values, Taken: candidates.NumberSetOf(taken[key]...).String()})
			}
			out = append(out, fp)
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// divisionValues are the values of a division's entries in the scope's
// order.
func divisionValues(scope []string, entries []numbers.Entry) []string {
	values := make([]string, len(scope))
	for _, e := range entries {
		if i := slices.Index(scope, e.Path); i >= 0 {
			values[i] = e.Value
		}
	}
	return values
}
