// Package graphql serves the GraphQL API of IPAM (SPEC §5): the schema is
// built at run time with graphql-go, every resolver calls the ipam.Service
// with the request's actor, and the domain's errors become
// extensions.code here and nowhere else.
package graphql

import (
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

	gql "github.com/graphql-go/graphql"
	"github.com/graphql-go/graphql/gqlerrors"
	"github.com/graphql-go/graphql/language/location"
	"github.com/graphql-go/graphql/language/parser"
	"github.com/graphql-go/graphql/language/source"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// Authenticate returns the actor of a request. When the request carries no
// credentials or invalid ones, the error wraps ErrUnauthenticated; any
// other error is the authenticator's failure.
type Authenticate func(r *http.Request) (auth.Actor, error)

// requestTimeout bounds the execution of one request.
const requestTimeout = 30 * time.Second

// handler serves POST requests of GraphQL over HTTP with JSON bodies.
type handler struct {
	schema       gql.Schema
	authenticate Authenticate
	log          *slog.Logger
	timeout      time.Duration
}

// NewHandler returns the handler of the GraphQL API over svc. Mount it at
// /graphql: it answers POST requests with a JSON body {query, variables,
// operationName} on whatever path it is given.
func NewHandler(svc *ipam.Service, authenticate Authenticate, logger *slog.Logger) (http.Handler, error) {
	if svc == nil || authenticate == nil {
		return nil, errors.New("graphql: a service and an authenticator are required")
	}
	if logger == nil {
		logger = slog.Default()
	}
	schema, err := newSchema(svc)
	if err != nil {
		return nil, fmt.Errorf("graphql: unable to build the schema: %w", err)
	}
	return &handler{schema: schema, authenticate: authenticate, log: logger, timeout: requestTimeout}, nil
}

// requestState is what the resolvers of one request share.
type requestState struct {
	actor   auth.Actor
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
	Message    string                    `json:"message"`
	Locations  []location.SourceLocation `json:"locations,omitempty"`
	Path       []any                     `json:"path,omitempty"`
	Extensions map[string]any            `json:"extensions,omitempty"`
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
	st := &requestState{id: newRequestID(), log: h.log, timeout: h.timeout}
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
	st.actor = actor

	req, status, msg := readRequest(w, r)
	if status != http.StatusOK {
		writeRefusal(w, status, codeInvalidArgument, msg)
		return
	}

	ctx, cancel := context.WithTimeout(context.WithValue(r.Context(), stateKey{}, st), h.timeout)
	defer cancel()
	writeJSON(w, http.StatusOK, h.execute(ctx, st, req))
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
	if err := json.Unmarshal(body, &req); err != nil {
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

// execute parses, bounds, validates and runs the request. The answer's
// data is present only when execution began.
func (h *handler) execute(ctx context.Context, st *requestState, req request) map[string]any {
	doc, err := parser.Parse(parser.ParseParams{Source: source.NewSource(&source.Source{Body: []byte(req.Query), Name: "GraphQL request"})})
	if err != nil {
		return map[string]any{"errors": responseErrors(ctx, st, gqlerrors.FormatErrors(err), false)}
	}
	if err := checkLimits(doc); err != nil {
		return map[string]any{"errors": []responseError{{Message: err.message, Extensions: err.Extensions()}}}
	}
	if v := gql.ValidateDocument(&h.schema, doc, nil); !v.IsValid {
		return map[string]any{"errors": responseErrors(ctx, st, v.Errors, false)}
	}
	res := gql.Execute(gql.ExecuteParams{
		Schema: h.schema, AST: doc, OperationName: req.OperationName, Args: req.Variables, Context: ctx,
	})
	// Without data, errors without a path are the request's (its variables,
	// its operation name), raised before execution began; unless the
	// request ran out of time.
	executed := res.Data != nil || ctx.Err() != nil
	for _, e := range res.Errors {
		executed = executed || len(e.Path) > 0
	}
	out := map[string]any{}
	if executed {
		out["data"] = res.Data
	}
	if len(res.Errors) > 0 {
		out["errors"] = responseErrors(ctx, st, res.Errors, executed)
	}
	return out
}

// responseErrors gives every error a code. The resolvers' errors have one;
// the others are the request's (syntax, validation, variables: invalid
// arguments) or, when they arose while resolving a field (they have a
// path) or when the request ran out of time, internal.
func responseErrors(ctx context.Context, st *requestState, errs []gqlerrors.FormattedError, executed bool) []responseError {
	out := make([]responseError, 0, len(errs))
	for _, e := range errs {
		re := responseError{Message: e.Message, Locations: e.Locations, Path: e.Path, Extensions: e.Extensions}
		if _, ok := re.Extensions["code"]; !ok {
			var ce *codedError
			if executed && (len(e.Path) > 0 || ctx.Err() != nil) {
				ce = st.internalError(ctx, fmt.Errorf("graphql: %s", e.Message))
			} else {
				ce = invalidArgument("%s", e.Message)
			}
			re.Message, re.Extensions = ce.message, ce.Extensions()
		}
		out = append(out, re)
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
