package graphql

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
)

// maxBuiltSchemas bounds the branches whose operators' schema a handler
// keeps built; the least recently used is dropped (and built again when
// asked for).
const maxBuiltSchemas = 64

// schemas holds the built schemas: the tenants' (the IPAM part), and the
// operators' of each branch, built from the branch's schema of kinds.
//
// A schema of kinds is immutable, and branch.Service gives another value
// when the branch's schema changed, through this process or another (it
// follows ipam_schema notifications): the value is the version. A request
// asks branch.Service for the branch's schema of kinds (from its cache: no
// statement) and is served the schema built from it, built once, the
// first time it is asked for. A built schema is immutable too: a request
// reads one and uses it throughout, and a rebuild never shows half of one.
type schemas struct {
	ipam *engine.Schema
	// plain is the operators' schema without kinds: the schema of a
	// branch whose schema of kinds does not build (which CheckSchema,
	// guarding every schema change, keeps from being stored).
	plain    *engine.Schema
	build    func(kinds schema.Schema) (*engine.Schema, error)
	branches *branch.Service
	log      *slog.Logger

	mu       sync.Mutex
	byBranch map[string]*builtSchema
	// tick orders the uses of the built schemas, for dropping the least
	// recently used.
	tick uint64
}

// A builtSchema is the operators' schema of a branch, built once from
// kinds.
type builtSchema struct {
	kinds  schema.Schema
	once   sync.Once
	schema *engine.Schema
	used   uint64
}

// forRequest returns the schema of the actor on the branch called name:
// the IPAM part to tenants, who see no branch but main; to operators, the
// branch's. An unknown branch is a *refusal.NotFoundError.
func (s *schemas) forRequest(ctx context.Context, actor auth.Actor, name string) (*engine.Schema, error) {
	if !actor.IsOperator() {
		if name != branch.Main {
			return nil, &refusal.NotFoundError{What: "branch " + name}
		}
		return s.ipam, nil
	}
	kinds, err := s.branches.Schema(ctx, name)
	if errors.Is(err, refusal.ErrNotFound) {
		s.forget(name)
	}
	if err != nil {
		return nil, err
	}
	e := s.entry(name, kinds)
	e.once.Do(func() {
		built, err := s.build(kinds)
		if err != nil {
			s.log.Error("the schema of kinds of a branch does not build; serving the API without its kinds", "branch", name, "err", err)
			built = s.plain
		}
		e.schema = built
	})
	return e.schema, nil
}

// entry returns the built schema of the branch for kinds, a new one (to
// build) when kinds is not what the current one was built from.
func (s *schemas) entry(name string, kinds schema.Schema) *builtSchema {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick++
	e := s.byBranch[name]
	if e == nil || e.kinds != kinds {
		if e == nil && len(s.byBranch) >= maxBuiltSchemas {
			s.dropLeastRecentlyUsed()
		}
		e = &builtSchema{kinds: kinds}
		s.byBranch[name] = e
	}
	e.used = s.tick
	return e
}

// dropLeastRecentlyUsed drops the built schema used the longest ago; the
// caller holds mu.
func (s *schemas) dropLeastRecentlyUsed() {
	oldest := ""
	for name, e := range s.byBranch {
		if oldest == "" || e.used < s.byBranch[oldest].used {
			oldest = name
		}
	}
	delete(s.byBranch, oldest)
}

// forget drops the built schema of a branch that is gone.
func (s *schemas) forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byBranch, name)
}
