package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Parse parses an executable document. Its error says "Syntax Error", as
// graphql-js's do.
func Parse(query string) (*ast.QueryDocument, *gqlerror.Error) {
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err == nil {
		return doc, nil
	}
	var ge *gqlerror.Error
	if !errors.As(err, &ge) {
		ge = gqlerror.Wrap(err)
	}
	out := *ge
	out.Message = "Syntax Error: " + ge.Message
	out.Extensions = nil
	return nil, &out
}

// Validate checks the document against the schema with the rules of the
// spec's section 5, as gqlparser implements them. A value of the wrong
// type is reported with the argument or variable it is given to (the
// rule's own message names neither), and an Int literal beyond 32 bits is
// refused. One rule is left out: UniqueDirectivesPerLocation, which
// graphql-go, the engine before this one, did not have, so that a
// directive repeated on a field is still accepted (the first one counts,
// as in graphql-js's execution).
func (s *Schema) Validate(doc *ast.QueryDocument) gqlerror.List {
	r := rules.NewDefaultRules()
	r.RemoveRule(rules.UniqueDirectivesPerLocationRule.Name)
	r.ReplaceRule(rules.ValuesOfCorrectTypeRule.Name, valuesOfCorrectType(doc))
	errs := validator.ValidateWithRules(s.ast, doc, r)
	for _, e := range errs {
		e.Extensions = nil
	}
	return errs
}

// valuesOfCorrectType is gqlparser's ValuesOfCorrectType rule, its
// messages prefixed with the argument or variable whose value is wrong.
func valuesOfCorrectType(doc *ast.QueryDocument) core.RuleFunc {
	return func(observers *core.Events, addError core.AddErrFunc) {
		var where map[*ast.Value]string
		var current *ast.Value
		prefixed := func(opts ...core.ErrorOption) {
			if where == nil {
				where = valueContexts(doc)
			}
			at := where[current]
			addError(append(opts, func(e *gqlerror.Error) { e.Message = at + e.Message })...)
		}
		// Observers run in the order they are added: this one first, so
		// that current is the value the rule's own observer reports on.
		observers.OnValue(func(_ *core.Walker, v *ast.Value) {
			current = v
			if v.Kind == ast.IntValue && v.Definition != nil && v.Definition.Name == "Int" {
				if _, err := strconv.ParseInt(v.Raw, 10, 32); err != nil {
					prefixed(core.Message("Int cannot represent non 32-bit signed integer value: %s", v.Raw), core.At(v.Position))
				}
			}
		})
		rules.ValuesOfCorrectTypeRule.RuleFunc(observers, prefixed)
	}
}

// valueContexts names, for every value the document writes, the argument
// or variable it is part of and where in it, as a prefix of a message.
func valueContexts(doc *ast.QueryDocument) map[*ast.Value]string {
	out := map[*ast.Value]string{}
	args := func(what string, as ast.ArgumentList) {
		for _, a := range as {
			nameValues(out, a.Value, fmt.Sprintf("Argument %q%s has invalid value", a.Name, what), "")
		}
	}
	directives := func(ds ast.DirectiveList) {
		for _, d := range ds {
			args(" of directive @"+d.Name, d.Arguments)
		}
	}
	var selections func(set ast.SelectionSet)
	selections = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				args("", sel.Arguments)
				directives(sel.Directives)
				selections(sel.SelectionSet)
			case *ast.InlineFragment:
				directives(sel.Directives)
				selections(sel.SelectionSet)
			case *ast.FragmentSpread:
				directives(sel.Directives)
			}
		}
	}
	for _, op := range doc.Operations {
		for _, v := range op.VariableDefinitions {
			nameValues(out, v.DefaultValue, fmt.Sprintf("Variable \"$%s\" has invalid default value", v.Variable), "")
			directives(v.Directives)
		}
		directives(op.Directives)
		selections(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		directives(f.Directives)
		selections(f.SelectionSet)
	}
	return out
}

// nameValues names v and the values in it: what, and the path inside.
func nameValues(out map[*ast.Value]string, v *ast.Value, what, path string) {
	if v == nil {
		return
	}
	if path == "" {
		out[v] = what + ": "
	} else {
		out[v] = fmt.Sprintf("%s at %q: ", what, strings.TrimPrefix(path, "."))
	}
	for i, c := range v.Children {
		if v.Kind == ast.ListValue {
			nameValues(out, c.Value, what, fmt.Sprintf("%s[%d]", path, i))
		} else {
			nameValues(out, c.Value, what, path+"."+c.Name)
		}
	}
}
