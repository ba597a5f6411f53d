package graphql

import (
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"
)

// An outline is the shape of a document, read before it is parsed so that
// its bounds (limits.go) are checked however deep or wide it is: the
// parser refuses input nested more than 1000 deep as a syntax error, and
// a request deserves to hear which bound it passed. It holds what the
// bounds measure and nothing else.
type outline struct {
	operations []*outlineOperation
	fragments  []*outlineFragment
	// typeSystem is the kind of the first type system definition in the
	// document ("ObjectDefinition"), if any.
	typeSystem string
}

type outlineOperation struct {
	operation  string // query, mutation or subscription
	variables  []outlineVariable
	directives []outlineDirective
	selections []*outlineSelection
}

type outlineVariable struct {
	defaultValue *outlineValue
	directives   []outlineDirective
}

type outlineFragment struct {
	name, typeCondition string
	directives          []outlineDirective
	selections          []*outlineSelection
}

// An outlineSelection is a field (field), a fragment spread (spread) or an
// inline fragment (neither).
type outlineSelection struct {
	field, spread string
	arguments     []outlineArgument
	directives    []outlineDirective
	selections    []*outlineSelection
}

type outlineDirective struct {
	name      string
	arguments []outlineArgument
}

type outlineArgument struct {
	name  string
	value *outlineValue
}

// An outlineValue is a list (items), an input object (fields) or a
// scalar (neither).
type outlineValue struct {
	list, object bool
	items        []*outlineValue
}

// typeSystemKinds name the type system definitions by their keyword, as
// graphql-js's AST kinds do.
var typeSystemKinds = map[string]string{
	"schema": "SchemaDefinition", "scalar": "ScalarDefinition", "type": "ObjectDefinition",
	"interface": "InterfaceDefinition", "union": "UnionDefinition", "enum": "EnumDefinition",
	"input": "InputObjectDefinition", "directive": "DirectiveDefinition", "extend": "TypeExtensionDefinition",
}

// outliner reads the outline of a document token by token. Any token it
// does not expect stops it: the document is then left to the parser,
// which says what is wrong.
type outliner struct {
	lex lexer.Lexer
	tok lexer.Token
	bad bool
}

// outlineOf returns the outline of query, or nil when it does not parse.
func outlineOf(query string) *outline {
	o := &outliner{lex: lexer.New(&ast.Source{Input: query})}
	o.next()
	doc := &outline{}
	for !o.bad && o.tok.Kind != lexer.EOF {
		if o.is(lexer.String) || o.is(lexer.BlockString) {
			o.next() // a description
		}
		switch {
		case o.is(lexer.BraceL):
			doc.operations = append(doc.operations, &outlineOperation{operation: "query", selections: o.selectionSet()})
		case o.tok.Kind == lexer.Name && o.tok.Value == "fragment":
			doc.fragments = append(doc.fragments, o.fragment())
		case o.tok.Kind == lexer.Name && typeSystemKinds[o.tok.Value] != "":
			doc.typeSystem = typeSystemKinds[o.tok.Value]
			return doc
		case o.tok.Kind == lexer.Name:
			doc.operations = append(doc.operations, o.operation())
		default:
			o.bad = true
		}
	}
	if o.bad {
		return nil
	}
	return doc
}

// next reads the next token but comments; a token the lexer refuses
// stops the outline.
func (o *outliner) next() {
	for !o.bad {
		tok, err := o.lex.ReadToken()
		if err != nil {
			o.bad = true
			return
		}
		if tok.Kind != lexer.Comment {
			o.tok = tok
			return
		}
	}
}

func (o *outliner) is(kind lexer.Type) bool { return !o.bad && o.tok.Kind == kind }

// skip reads a token of kind, reporting whether it was one.
func (o *outliner) skip(kind lexer.Type) bool {
	if !o.is(kind) {
		return false
	}
	o.next()
	return true
}

// expect reads a token of kind, or stops the outline.
func (o *outliner) expect(kind lexer.Type) {
	if !o.skip(kind) {
		o.bad = true
	}
}

// name reads a name.
func (o *outliner) name() string {
	if !o.is(lexer.Name) {
		o.bad = true
		return ""
	}
	n := o.tok.Value
	o.next()
	return n
}

func (o *outliner) operation() *outlineOperation {
	op := &outlineOperation{operation: o.name()}
	switch op.operation {
	case "query", "mutation", "subscription":
	default:
		o.bad = true
	}
	if o.is(lexer.Name) {
		o.next()
	}
	if o.skip(lexer.ParenL) {
		for !o.bad && !o.skip(lexer.ParenR) {
			o.expect(lexer.Dollar)
			o.name()
			o.expect(lexer.Colon)
			o.typeReference()
			var v outlineVariable
			if o.skip(lexer.Equals) {
				v.defaultValue = o.value()
			}
			v.directives = o.directives()
			op.variables = append(op.variables, v)
		}
	}
	op.directives = o.directives()
	op.selections = o.selectionSet()
	return op
}

func (o *outliner) typeReference() {
	if o.skip(lexer.BracketL) {
		o.typeReference()
		o.expect(lexer.BracketR)
	} else {
		o.name()
	}
	o.skip(lexer.Bang)
}

func (o *outliner) fragment() *outlineFragment {
	o.next()
	f := &outlineFragment{name: o.name()}
	if o.name() != "on" {
		o.bad = true
	}
	f.typeCondition = o.name()
	f.directives = o.directives()
	f.selections = o.selectionSet()
	return f
}

func (o *outliner) selectionSet() []*outlineSelection {
	o.expect(lexer.BraceL)
	var out []*outlineSelection
	for !o.bad && !o.skip(lexer.BraceR) {
		out = append(out, o.selection())
	}
	return out
}

func (o *outliner) selection() *outlineSelection {
	s := &outlineSelection{}
	if o.skip(lexer.Spread) {
		if o.is(lexer.Name) && o.tok.Value != "on" {
			s.spread = o.name()
			s.directives = o.directives()
			return s
		}
		if o.is(lexer.Name) {
			o.next()
			o.name()
		}
		s.directives = o.directives()
		s.selections = o.selectionSet()
		return s
	}
	s.field = o.name()
	if o.skip(lexer.Colon) {
		s.field = o.name()
	}
	s.arguments = o.arguments()
	s.directives = o.directives()
	if o.is(lexer.BraceL) {
		s.selections = o.selectionSet()
	}
	return s
}

func (o *outliner) arguments() []outlineArgument {
	var out []outlineArgument
	if !o.skip(lexer.ParenL) {
		return nil
	}
	for !o.bad && !o.skip(lexer.ParenR) {
		a := outlineArgument{name: o.name()}
		o.expect(lexer.Colon)
		a.value = o.value()
		out = append(out, a)
	}
	return out
}

func (o *outliner) directives() []outlineDirective {
	var out []outlineDirective
	for o.skip(lexer.At) {
		out = append(out, outlineDirective{name: o.name(), arguments: o.arguments()})
	}
	return out
}

func (o *outliner) value() *outlineValue {
	v := &outlineValue{}
	switch {
	case o.skip(lexer.BracketL):
		v.list = true
		for !o.bad && !o.skip(lexer.BracketR) {
			v.items = append(v.items, o.value())
		}
	case o.skip(lexer.BraceL):
		v.object = true
		for !o.bad && !o.skip(lexer.BraceR) {
			o.name()
			o.expect(lexer.Colon)
			v.items = append(v.items, o.value())
		}
	case o.skip(lexer.Dollar):
		o.name()
	case o.is(lexer.Name), o.is(lexer.Int), o.is(lexer.Float), o.is(lexer.String), o.is(lexer.BlockString):
		o.next()
	default:
		o.bad = true
	}
	return v
}
