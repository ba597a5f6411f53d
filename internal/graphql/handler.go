// Package graphql serves the GraphQL API (docs/architecture.md): the schema is
// assembled at run time from its families (pools.go, vpcs.go,
// allocations.go, floatingips.go; branches.go, schemaofkinds.go and the
// number pools' numberpools.go) and the part generated from the schema of
// kinds of the branch addressed (kinds.go), and run by the engine of the
// engine package; every resolver calls ipam.Service, branch.Service or
// numbers.Service with the request's actor, and the domain's errors become
// extensions.code here and nowhere else.
package graphql

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/search"
)

// Authenticate returns the actor of a request. When the request carries no
// credentials or invalid ones, the error wraps ErrUnauthenticated; any
// other error is the authenticator's failure.
type Authenticate func(r *http.Request) (auth.Actor, error)

// requestTimeout bounds the execution of one request.
const requestTimeout = 30 * time.Second

// handler serves POST requests of GraphQL over HTTP with JSON bodies.
type handler struct {
	schemas      *schemas
	authenticate Authenticate
	log          *slog.Logger
	timeout      time.Duration
	requestID    func(context.Context) string
	// pools serves the number pools, and finds them and their numbers
	// for the search.
	pools *numbers.Service
}

// An Option sets up the handler.
type Option func(*handler)

// WithRequestID names every request by the id that id returns for its
// context (the id the server's middleware gave it, which its access log
// and X-Request-Id carry) in the messages and the log lines of its
// errors. Without it, or when it returns "", the handler makes one.
func WithRequestID(id func(context.Context) string) Option {
	return func(h *handler) { h.requestID = id }
}

// NewHandler returns the handler of the GraphQL API over svc (the IPAM
// part) and pools: the number pools, served to operators (the kind
// CoreNumberPool with its query and mutations, from_pool on the inputs of
// Number attributes, the queries of pools' usage such as
// InfrahubNumberPoolDivisions), and through pools.Branches(), which keeps
// the pools' records of every change, the branches, the schema of kinds
// and the objects of kinds. Mount it at /graphql and /graphql/{branch...}:
// it answers POST requests with a JSON body {query, variables,
// operationName} on the branch the path value "branch" names, main when
// there is none. An unknown branch is answered 404 with the code
// NOT_FOUND, before the body is read.
func NewHandler(svc *ipam.Service, pools *numbers.Service, authenticate Authenticate, logger *slog.Logger, opts ...Option) (http.Handler, error) {
	if svc == nil || pools == nil || authenticate == nil {
		return nil, errors.New("graphql: the services and an authenticator are required")
	}
	if logger == nil {
		logger = slog.Default()
	}
	h := &handler{authenticate: authenticate, log: logger, timeout: requestTimeout, pools: pools}
	for _, o := range opts {
		o(h)
	}
	branches := pools.Branches()
	ipamSchema, err := newIPAMSchema(svc)
	if err != nil {
		return nil, fmt.Errorf("graphql: unable to build the schema: %w", err)
	}
	plain, err := newOperatorSchema(svc, branches, h.pools, schema.Schema{})
	if err != nil {
		return nil, fmt.Errorf("graphql: unable to build the schema: %w", err)
	}
	h.schemas = &schemas{ipam: ipamSchema, plain: plain, branches: branches, log: logger, byBranch: map[string]*builtSchema{},
		build: func(kinds schema.Schema) (*engine.Schema, error) {
			return newOperatorSchema(svc, branches, h.pools, kinds)
		}}
	return h, nil
}

// requestState is what the resolvers of one request share.
type requestState struct {
	actor auth.Actor
	// branch is the branch addressed, on which the resolvers of branches,
	// of the schema of kinds and of objects act.
	branch string
	// finder finds number pools, numbers and objects of kinds for the
	// search.
	finder  search.Finder
	id      string
	log     *slog.Logger
	timeout time.Duration
}

type stateKey struct{}

// stateOf returns the state of the request ctx belongs to.
func stateOf(ctx context.Context) *requestState {
	return ctx.Value(stateKey{}).(*requestState)
}

// request is the body of a GraphQL request.
type request struct {
	Query         string         `json:"query"`
	Variables     map[string]any `json:"variables"`
	OperationName string         `json:"operationName"`
}

// responseError is an error as the response carries it.
type responseError struct {
	Message    string              `json:"message"`
	Locations  []gqlerror.Location `json:"locations,omitempty"`
	Path       ast.Path            `json:"path,omitempty"`
	Extensions map[string]any      `json:"extensions,omitempty"`
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeRefusal(w, http.StatusMethodNotAllowed, codeInvalidArgument, "use POST with a JSON body {query, variables, operationName}")
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeRefusal(w, http.StatusUnsupportedMediaType, codeInvalidArgument, "the body must be JSON, sent with Content-Type: application/json")
		return
	}
	st := &requestState{log: h.log, timeout: h.timeout}
	if h.requestID != nil {
		st.id = h.requestID(r.Context())
	}
	if st.id == "" {
		st.id = newRequestID()
	}
	actor, err := h.authenticate(r)
	switch {
	case errors.Is(err, ErrUnauthenticated):
		w.Header().Set("WWW-Authenticate", `Bearer realm="ipam"`)
		writeRefusal(w, http.StatusUnauthorized, codeUnauthenticated, err.Error())
		return
	case err != nil:
		e := st.domainError(r.Context(), fmt.Errorf("authenticate: %w", err))
		writeJSON(w, e.status(), map[string]any{"errors": []responseError{{Message: e.message, Extensions: e.Extensions()}}})
		return
	}
	st.actor, st.finder = actor, h.pools
	if st.branch = r.PathValue("branch"); st.branch == "" {
		st.branch = branch.Main
	}
	schema, err := h.schemas.forRequest(r.Context(), actor, st.branch)
	if err != nil {
		e := st.domainError(r.Context(), err)
		writeJSON(w, e.status(), map[string]any{"errors": []responseError{{Message: e.message, Extensions: e.Extensions()}}})
		return
	}

	req, status, msg := readRequest(w, r)
	if status != http.StatusOK {
		writeRefusal(w, status, codeInvalidArgument, msg)
		return
	}

	ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), stateKey{}, st), h.timeout)
	defer cancel()
	writeJSON(w, http.StatusOK, h.execute(ctx, st, schema, req))
}

// readRequest reads the body; a status other than 200 refuses it with msg.
func readRequest(w http.ResponseWriter, r *http.Request) (req request, status int, msg string) {
	tooLarge := fmt.Sprintf("the body is larger than the limit of %d bytes", maxBodyBytes)
	if r.ContentLength > maxBodyBytes {
		return req, http.StatusRequestEntityTooLarge, tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return req, http.StatusRequestEntityTooLarge, tooLarge
	case err != nil:
		return req, http.StatusBadRequest, "unable to read the body"
	}
	if err := decodeRequest(body, &req); err != nil {
		return req, http.StatusBadRequest, "the body is not a JSON object {query, variables, operationName}: " + err.Error()
	}
	switch {
	case req.Query == "":
		return req, http.StatusBadRequest, "query is required"
	case len(req.Query) > maxQueryBytes:
		return req, http.StatusBadRequest, fmt.Sprintf("query is %d bytes long, more than the limit of %d", len(req.Query), maxQueryBytes)
	}
	return req, http.StatusOK, ""
}

// decodeRequest reads the body into req, the numbers of the variables as
// json.Numbers: a BigInt beyond 2^53 keeps every digit.
func decodeRequest(body []byte, req *request) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(req); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("invalid data after the top-level value")
	}
	return nil
}

// execute bounds, parses, validates and runs the request against schema.
// The answer's data is present only when execution began.
func (h *handler) execute(ctx context.Context, st *requestState, schema *engine.Schema, req request) map[string]any {
	if err := checkLimits(req.Query); err != nil {
		return map[string]any{"errors": []responseError{{Message: err.message, Extensions: err.Extensions()}}}
	}
	doc, err := engine.Parse(req.Query)
	if err != nil {
		return map[string]any{"errors": requestErrors(gqlerror.List{err})}
	}
	if errs := schema.Validate(doc); len(errs) > 0 {
		return map[string]any{"errors": requestErrors(errs)}
	}
	res := schema.Execute(ctx, engine.Request{Document: doc, OperationName: req.OperationName,
		Variables: req.Variables, MaxResolverCalls: maxResolverCalls})
	if !res.Executed {
		return map[string]any{"errors": requestErrors(res.Errors)}
	}
	out := map[string]any{"data": res.Data}
	if len(res.Errors) > 0 {
		out["errors"] = st.fieldErrors(ctx, res.Errors)
	}
	return out
}

// requestErrors are the errors of a request refused before execution
// (its syntax, its validation, its operation name, its variables): the
// client's mistakes.
func requestErrors(errs gqlerror.List) []responseError {
	out := make([]responseError, len(errs))
	for i, e := range errs {
		out[i] = responseError{Message: e.Message, Locations: e.Locations, Extensions: map[string]any{"code": codeInvalidArgument}}
	}
	return out
}

// fieldErrors gives every error of execution a code: the resolvers' errors
// have one; arguments that could not be coerced and a request that
// resolves too many fields are invalid arguments; anything else (a
// resolver's bug, a request out of time) is internal, and logged.
func (st *requestState) fieldErrors(ctx context.Context, errs gqlerror.List) []responseError {
	out := make([]responseError, len(errs))
	for i, e := range errs {
		var coded *codedError
		var arg *engine.ArgumentError
		switch {
		case errors.As(e, &coded):
		case errors.As(e, &arg):
			coded = invalidArgument("%s", arg.Error())
		case errors.Is(e, engine.ErrResolverCalls):
			coded = invalidArgument("the request resolves more than %d fields, the limit: select fewer fields, or smaller pages", maxResolverCalls)
		default:
			coded = st.internalError(ctx, fmt.Errorf("graphql: %s at %s", e.Message, e.Path))
		}
		out[i] = responseError{Message: coded.message, Locations: e.Locations, Path: e.Path, Extensions: coded.Extensions()}
	}
	return out
}

// writeRefusal answers a request that was not executed.
func writeRefusal(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"errors": []responseError{{Message: msg, Extensions: map[string]any{"code": code}}}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
