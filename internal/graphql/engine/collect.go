package engine

import (
	"github.com/vektah/gqlparser/v2/ast"
)

// A fieldGroup is the fields of a selection set that share a response key
// (an alias, or the field's name), in the order the key first appears.
type fieldGroup struct {
	key    string
	fields []*ast.Field
}

// collectFields is CollectFields: the fields a selection set selects on an
// object type, through fragments whose type condition applies, and
// without those that @skip or @include leave out. Each fragment is
// collected once (visited).
func (e *execution) collectFields(objectType *ast.Definition, set ast.SelectionSet, visited map[string]bool, groups []fieldGroup) []fieldGroup {
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if !e.shouldIncludeNode(sel.Directives) {
				continue
			}
			key := sel.Alias
			if key == "" {
				key = sel.Name
			}
			groups = addToGroup(groups, key, sel)
		case *ast.FragmentSpread:
			if visited[sel.Name] || !e.shouldIncludeNode(sel.Directives) {
				continue
			}
			visited[sel.Name] = true
			f := e.fragments[sel.Name]
			if f == nil || !e.doesFragmentTypeApply(objectType, f.TypeCondition) {
				continue
			}
			groups = e.collectFields(objectType, f.SelectionSet, visited, groups)
		case *ast.InlineFragment:
			if !e.shouldIncludeNode(sel.Directives) || !e.doesFragmentTypeApply(objectType, sel.TypeCondition) {
				continue
			}
			groups = e.collectFields(objectType, sel.SelectionSet, visited, groups)
		}
	}
	return groups
}

// addToGroup appends the field to the group of key, or starts one.
func addToGroup(groups []fieldGroup, key string, f *ast.Field) []fieldGroup {
	for i := range groups {
		if groups[i].key == key {
			groups[i].fields = append(groups[i].fields, f)
			return groups
		}
	}
	return append(groups, fieldGroup{key: key, fields: []*ast.Field{f}})
}

// collectSubfields is CollectSubfields: the fields the selection sets of
// all the field's nodes select on its object type, memoised for the
// items of a list.
func (e *execution) collectSubfields(objectType *ast.Definition, fields []*ast.Field) []fieldGroup {
	k := subfieldsKey{typ: objectType, first: &fields[0], n: len(fields)}
	if groups, ok := e.subfields[k]; ok {
		return groups
	}
	var groups []fieldGroup
	visited := map[string]bool{}
	for _, f := range fields {
		groups = e.collectFields(objectType, f.SelectionSet, visited, groups)
	}
	e.subfields[k] = groups
	return groups
}

// shouldIncludeNode is the spec's check of @skip and @include: a node is
// left out when @skip(if: true) or @include(if: false) is on it.
func (e *execution) shouldIncludeNode(directives ast.DirectiveList) bool {
	if d := directives.ForName("skip"); d != nil && e.directiveIf(d) {
		return false
	}
	if d := directives.ForName("include"); d != nil && !e.directiveIf(d) {
		return false
	}
	return true
}

// directiveIf is the value of the argument if of @skip or @include: a
// Boolean literal or variable, which validation and variable coercion
// have checked.
func (e *execution) directiveIf(d *ast.Directive) bool {
	a := d.Arguments.ForName("if")
	if a == nil {
		return false
	}
	v, err := valueFromAST(a.Value, ast.NonNullNamedType("Boolean", nil), e.schema, e.variables)
	b, _ := v.(bool)
	return err == nil && b
}

// doesFragmentTypeApply is DoesFragmentTypeApply: a fragment without a
// type condition, or on the object type, or on an interface or a union
// the object type belongs to.
func (e *execution) doesFragmentTypeApply(objectType *ast.Definition, typeCondition string) bool {
	if typeCondition == "" || typeCondition == objectType.Name {
		return true
	}
	cond := e.schema.ast.Types[typeCondition]
	if cond == nil || !cond.IsAbstractType() {
		return false
	}
	for _, t := range e.schema.ast.GetPossibleTypes(cond) {
		if t.Name == objectType.Name {
			return true
		}
	}
	return false
}
