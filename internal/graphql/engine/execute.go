package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// A Request is a document that Validate accepted, with the operation to
// run and the variables' values as the client sent them.
type Request struct {
	Document      *ast.QueryDocument
	OperationName string
	Variables     map[string]any
	// MaxResolverCalls bounds how many fields are resolved; 0 is no bound.
	// Fields beyond it fail with ErrResolverCalls.
	MaxResolverCalls int
}

// A Result is the answer to a request. Executed is false, and Data nil,
// when the request failed before execution began (its operation name or
// its variables); the errors are then the request's.
type Result struct {
	Data     *Object
	Errors   gqlerror.List
	Executed bool
}

// ErrResolverCalls is the error of the fields beyond a request's
// MaxResolverCalls; it is reported once, at the first of them.
var ErrResolverCalls = errors.New("too many fields resolved")

// An ArgumentError is the error of a field whose arguments could not be
// coerced to their types: the request's mistake, found as the field ran.
type ArgumentError struct{ Err error }

func (e *ArgumentError) Error() string { return e.Err.Error() }

func (e *ArgumentError) Unwrap() error { return e.Err }

// An execution is the state of one request's execution: the
// ExecutionContext of graphql-js.
type execution struct {
	ctx       context.Context
	schema    *Schema
	fragments map[string]*ast.FragmentDefinition
	variables map[string]any
	errors    gqlerror.List
	// calls counts the resolvers called, up to maxCalls (0: no bound).
	calls, maxCalls int
	callsReported   bool
	// subfields memoises CollectSubfields: every item of a list of
	// objects selects the same fields.
	subfields map[subfieldsKey][]fieldGroup
}

type subfieldsKey struct {
	typ   *ast.Definition
	first **ast.Field
	n     int
}

// Execute runs the request (ExecuteRequest): it picks the operation,
// coerces the variables and executes the operation.
func (s *Schema) Execute(ctx context.Context, req Request) Result {
	op, err := getOperation(req.Document, req.OperationName)
	if err != nil {
		return Result{Errors: gqlerror.List{err}}
	}
	vars, err := s.coerceVariableValues(op, req.Variables)
	if err != nil {
		return Result{Errors: gqlerror.List{err}}
	}
	e := &execution{ctx: ctx, schema: s, fragments: map[string]*ast.FragmentDefinition{}, variables: vars,
		maxCalls: req.MaxResolverCalls, subfields: map[subfieldsKey][]fieldGroup{}}
	for _, f := range req.Document.Fragments {
		e.fragments[f.Name] = f
	}
	data := e.executeOperation(op)
	return Result{Data: data, Errors: e.errors, Executed: true}
}

// getOperation is GetOperation: the operation named, or the only one.
func getOperation(doc *ast.QueryDocument, name string) (*ast.OperationDefinition, *gqlerror.Error) {
	if name == "" {
		switch len(doc.Operations) {
		case 0:
			return nil, gqlerror.Errorf("Must provide an operation.")
		case 1:
			return doc.Operations[0], nil
		}
		return nil, gqlerror.Errorf("Must provide operation name if query contains multiple operations.")
	}
	if op := doc.Operations.ForName(name); op != nil {
		return op, nil
	}
	return nil, gqlerror.Errorf("Unknown operation named %q.", name)
}

// executeOperation is ExecuteQuery and ExecuteMutation: the root
// selection set on the root type. Fields are executed in order, which is
// the serial execution a mutation requires and one of the orders a query
// allows. A null that reaches the root makes the data null.
func (e *execution) executeOperation(op *ast.OperationDefinition) *Object {
	root := e.schema.ast.Query
	switch op.Operation {
	case ast.Mutation:
		root = e.schema.ast.Mutation
	case ast.Subscription:
		root = nil
	}
	if root == nil {
		e.errors = append(e.errors, gqlerror.Errorf("the schema has no %s operations", op.Operation))
		return nil
	}
	data, err := e.executeSelectionSet(root, nil, nil, e.collectFields(root, op.SelectionSet, map[string]bool{}, nil))
	if err != nil {
		e.record(err)
		return nil
	}
	return data
}

// executeSelectionSet is ExecuteSelectionSet over fields already collected:
// each field in order. The first field whose null reaches this object
// stops it, and its error is returned.
func (e *execution) executeSelectionSet(objectType *ast.Definition, source any, path *pathNode, groups []fieldGroup) (*Object, *gqlerror.Error) {
	out := &Object{keys: make([]string, 0, len(groups)), values: make([]any, 0, len(groups))}
	for _, g := range groups {
		v, err := e.executeField(objectType, source, g.fields, &pathNode{prev: path, key: ast.PathName(g.key)})
		if err != nil {
			return nil, err
		}
		out.keys, out.values = append(out.keys, g.key), append(out.values, v)
	}
	return out, nil
}

// executeField is ExecuteField: coerce the arguments, resolve, complete.
func (e *execution) executeField(objectType *ast.Definition, source any, fields []*ast.Field, path *pathNode) (any, *gqlerror.Error) {
	node := fields[0]
	if node.Name == "__typename" {
		return objectType.Name, nil
	}
	def := objectType.Fields.ForName(node.Name)
	args, err := e.schema.coerceArgumentValues(def, node, e.variables)
	if err != nil {
		err = &ArgumentError{Err: err}
	}
	var v any
	if err == nil {
		v, err = e.resolveFieldValue(objectType, def, source, args)
	}
	if err != nil {
		return e.handleFieldError(locatedError(err, fields, path), def.Type)
	}
	v, located := e.completeValue(def.Type, fields, v, path)
	if located != nil {
		return e.handleFieldError(located, def.Type)
	}
	return v, nil
}

// resolveFieldValue is ResolveFieldValue: it calls the field's resolver,
// unless the request is out of resolvers or of time. A resolver that
// panics fails its field.
func (e *execution) resolveFieldValue(objectType *ast.Definition, def *ast.FieldDefinition, source any, args map[string]any) (v any, err error) {
	if e.maxCalls > 0 && e.calls >= e.maxCalls {
		return nil, ErrResolverCalls
	}
	e.calls++
	if err := e.ctx.Err(); err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("the resolver of %s.%s panicked: %v", objectType.Name, def.Name, p)
		}
	}()
	return e.schema.resolvers[fieldKey{objectType.Name, def.Name}](e.ctx, Params{Source: source, Args: args})
}

// handleFieldError is graphql-js's handleFieldError: the error of a
// non-null field propagates to its parent; that of a nullable one is
// recorded, and the field is null.
func (e *execution) handleFieldError(err *gqlerror.Error, returnType *ast.Type) (any, *gqlerror.Error) {
	if returnType.NonNull {
		return nil, err
	}
	e.record(err)
	return nil, nil
}

// record adds an error to the response's; ErrResolverCalls only once.
func (e *execution) record(err *gqlerror.Error) {
	if errors.Is(err, ErrResolverCalls) {
		if e.callsReported {
			return
		}
		e.callsReported = true
	}
	e.errors = append(e.errors, err)
}

// completeValue is CompleteValue: the resolved value shaped by the field's
// type. Its errors are located at the field, or come located from below.
func (e *execution) completeValue(returnType *ast.Type, fields []*ast.Field, result any, path *pathNode) (any, *gqlerror.Error) {
	if returnType.NonNull {
		nullable := *returnType
		nullable.NonNull = false
		v, err := e.completeValue(&nullable, fields, result, path)
		if err == nil && v == nil {
			parent := fields[0].ObjectDefinition
			err = locatedError(graphQLError("Cannot return null for non-nullable field %s.%s.", parent.Name, fields[0].Name), fields, path)
		}
		return v, err
	}
	if isNull(result) {
		return nil, nil
	}
	if returnType.Elem != nil {
		return e.completeListValue(returnType.Elem, fields, result, path)
	}
	def := e.schema.ast.Types[returnType.NamedType]
	switch {
	case def.IsLeafType():
		v, err := serializeLeaf(def, result)
		if err != nil {
			return nil, locatedError(err, fields, path)
		}
		return v, nil
	case def.IsAbstractType():
		return e.completeAbstractValue(def, fields, result, path)
	}
	return e.completeObjectValue(def, fields, result, path)
}

// completeListValue is CompleteValue of a list: every item completed by
// the item type. A failed item is null, or, when the item type is
// non-null, fails the list.
func (e *execution) completeListValue(itemType *ast.Type, fields []*ast.Field, result any, path *pathNode) (any, *gqlerror.Error) {
	items, ok := result.([]any)
	if !ok {
		rv := reflect.ValueOf(result)
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			return nil, locatedError(fmt.Errorf("expected a list for field %s, got %T", fields[0].Name, result), fields, path)
		}
		items = make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
	}
	out := make([]any, len(items))
	for i, item := range items {
		v, err := e.completeValue(itemType, fields, item, &pathNode{prev: path, key: ast.PathIndex(i)})
		if err != nil {
			if v, err = e.handleFieldError(err, itemType); err != nil {
				return nil, err
			}
		}
		out[i] = v
	}
	return out, nil
}

// completeAbstractValue is CompleteValue of an interface or a union: the
// object type the type resolver names, if it is one of the possible types.
func (e *execution) completeAbstractValue(def *ast.Definition, fields []*ast.Field, result any, path *pathNode) (any, *gqlerror.Error) {
	name := e.schema.typeResolvers[def.Name](result)
	for _, t := range e.schema.ast.GetPossibleTypes(def) {
		if t.Name == name {
			return e.completeObjectValue(t, fields, result, path)
		}
	}
	return nil, locatedError(fmt.Errorf("abstract type %s resolved to %q, which is not one of its possible types", def.Name, name), fields, path)
}

// completeObjectValue is CompleteValue of an object: its subfields
// executed on the resolved value.
func (e *execution) completeObjectValue(def *ast.Definition, fields []*ast.Field, result any, path *pathNode) (any, *gqlerror.Error) {
	v, err := e.executeSelectionSet(def, result, path, e.collectSubfields(def, fields))
	if err != nil {
		return nil, err
	}
	return v, nil
}

// isNull reports whether a resolved value is null: nil, or a nil
// pointer or map. A nil slice is an empty list.
func isNull(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// A pathNode is a response path as a list from the leaf up, as graphql-js
// keeps it: extending it allocates one node.
type pathNode struct {
	prev *pathNode
	key  ast.PathElement
}

func (p *pathNode) path() ast.Path {
	n := 0
	for q := p; q != nil; q = q.prev {
		n++
	}
	out := make(ast.Path, n)
	for q := p; q != nil; q = q.prev {
		n--
		out[n] = q.key
	}
	return out
}

// graphQLError returns an error worded as GraphQL's errors are: a
// sentence, as graphql-js writes them.
func graphQLError(format string, args ...any) error { return fmt.Errorf(format, args...) }

// locatedError is graphql-js's locatedError: err with the fields'
// locations and the response path.
func locatedError(err error, fields []*ast.Field, path *pathNode) *gqlerror.Error {
	out := &gqlerror.Error{Err: err, Message: err.Error(), Path: path.path()}
	for _, f := range fields {
		if f.Position != nil {
			out.Locations = append(out.Locations, gqlerror.Location{Line: f.Position.Line, Column: f.Position.Column})
		}
	}
	return out
}
