package numbers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

// PoolKind is the built-in kind of number pools, as the API names it.
const PoolKind = audit.KindNumberPool

// A Range is a span of numbers of a pool, both ends included, and its
// weight: ranges are tried by descending weight, ties in the order given.
type Range struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Weight int   `json:"weight"`
}

// A ScopeElement is an attribute or a relationship of a pool's kind that
// divides its numbers.
type ScopeElement struct {
	// ID is the element's stable id: a rename keeps it.
	ID string `json:"id"`
	// Name is its name in the default branch's schema now.
	Name string `json:"name"`
	// Relationship says whether it is a relationship (its values are
	// peers' ids) or an attribute.
	Relationship bool `json:"relationship"`
}

// A Pool is a number pool: the same on every branch.
type Pool struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Kind is the full name of the pool's kind (a node or a generic) in
	// the default branch's schema now; KindID its stable id.
	Kind   string `json:"node"`
	KindID string `json:"node_id"`
	// Attribute is the name of the Number attribute the pool allocates, in
	// the default branch's schema now; AttributeID its stable id.
	Attribute   string `json:"node_attribute"`
	AttributeID string `json:"node_attribute_id"`
	// Scope are the elements that divide the pool's numbers, in order;
	// none for a pool that allocates from one space.
	Scope     []ScopeElement `json:"allocation_scope"`
	Ranges    []Range        `json:"ranges"`
	CreatedAt time.Time      `json:"created_at"`
	CreatedBy string         `json:"created_by"`
}

// audit is the audit log's document of the pool.
func (p Pool) audit() audit.NumberPool {
	out := audit.NumberPool{ID: p.ID, Name: p.Name, Description: p.Description, Node: p.Kind, NodeID: p.KindID,
		NodeAttribute: p.Attribute, NodeAttributeID: p.AttributeID, CreatedAt: p.CreatedAt, CreatedBy: p.CreatedBy}
	if p.Scope != nil {
		out.AllocationScope = make([]audit.ScopeElement, len(p.Scope))
		for i, e := range p.Scope {
			out.AllocationScope[i] = audit.ScopeElement(e)
		}
	}
	if p.Ranges != nil {
		out.Ranges = make([]audit.NumberRange, len(p.Ranges))
		for i, r := range p.Ranges {
			out.Ranges[i] = audit.NumberRange(r)
		}
	}
	return out
}

// ScopeNames are the names of the pool's scope elements, in order.
func (p Pool) ScopeNames() []string {
	out := make([]string, len(p.Scope))
	for i, e := range p.Scope {
		out[i] = e.Name
	}
	return out
}

// PoolInput is a new pool.
type PoolInput struct {
	Name        string
	Description string
	// Node is the full name of a node or a generic of the default
	// branch's schema; NodeAttribute a Number attribute of it.
	Node          string
	NodeAttribute string
	// Ranges are at least one range, each of weight 1 or more.
	Ranges []Range
	// AllocationScope names attributes and relationships of Node; none
	// for a pool without a scope.
	AllocationScope []string
}

// PoolUpdate is a change of a pool: what is nil is kept. The scope, the
// kind and the attribute cannot change: given, they must be the pool's.
type PoolUpdate struct {
	Name        *string
	Description *string
	// Ranges, when not nil, replace the pool's (at least one).
	Ranges []Range
	// AllocationScope, when not nil, must name the pool's scope.
	AllocationScope []string
	// Node and NodeAttribute, when not nil, must name the pool's.
	Node, NodeAttribute *string
}

// A PoolPage is a page of pools and how many there are in all.
type PoolPage struct {
	Pools []Pool
	Count int
}

// A PoolFilter narrows Pools; the conditions hold together.
type PoolFilter struct {
	// IDs keeps these pools only, when not nil.
	IDs []string
	// Name keeps the pool of that name, when not "".
	Name string
}

// The bounds of a pool's name and description, in bytes.
const (
	MaxNameLength        = 128
	MaxDescriptionLength = 4096
)

// CreatePool creates a pool, checked against the default branch's schema,
// and records every number the branches' objects of its kind hold already,
// which the pool then skips. Refusals are *refusal.InvalidErrors naming the
// field (the scope's as TestScopeRefusals words them), a name in use a
// *refusal.ConflictError. It holds every branch alone while it reads their
// objects, so that no write of an object escapes the pool's records.
// Operators only: tenants get ErrNotFound.
func (s *Service) CreatePool(ctx context.Context, actor auth.Actor, in PoolInput) (Pool, error) {
	if !actor.IsOperator() {
		return Pool{}, notFound("kind %s", PoolKind)
	}
	// Every mistake at once: those of the fields checked here, and those
	// against the schema.
	ranges, err := parseRanges(in.Ranges)
	mistakes := errors.Join(checkName(in.Name), checkDescription(in.Description), err)
	var out Pool
	err = store.InTx(ctx, s.db, func(tx *store.Tx) error {
		branches, err := store.LockAllBranches(ctx, tx)
		if err != nil {
			return err
		}
		schemas := make([]schema.Schema, len(branches))
		for i, b := range branches {
			if schemas[i], err = storedSchema(ctx, tx, b); err != nil {
				return err
			}
		}
		main := schemas[len(schemas)-1] // main is locked last
		row, err := poolRow(main, in, ranges)
		if err := errors.Join(mistakes, err); err != nil {
			return err
		}
		row.ID, row.CreatedBy = newID(), actor.Name
		out = poolOf(main, row)
		row, err = store.InsertNumberPool(ctx, tx, row, store.AuditEntry{Actor: actor.Name, Action: audit.Create, ObjectKind: PoolKind,
			ObjectName: row.Name, After: store.JSON(out.audit())})
		if errors.Is(err, store.ErrObjectExists) {
			return conflict("name", "a number pool named %s exists", in.Name)
		}
		if err != nil {
			return err
		}
		out = poolOf(main, row)
		return recordExisting(ctx, tx, row, schemas)
	})
	return out, err
}

// checkDescription refuses a pool's description that is too long.
func checkDescription(description string) error {
	if len(description) > MaxDescriptionLength {
		return invalid("description", "description is %d bytes, more than %d", len(description), MaxDescriptionLength)
	}
	return nil
}

// checkName refuses a pool's name that is empty or too long.
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return invalid("name", "name is required, such as VLAN IDs per site")
	case len(name) > MaxNameLength:
		return invalid("name", "name is %d bytes, more than %d", len(name), MaxNameLength)
	}
	return nil
}

// parseRanges checks a pool's ranges with the enumerator (a weight is 1 or
// more: the API's default is 1, a 0 was written by the client and is
// refused), and returns them as the store keeps them; refused, an
// invalid error of each mistake, joined.
func parseRanges(in []Range) ([]store.NumberRange, error) {
	rs := make([]candidates.NumberRange, len(in))
	out := make([]store.NumberRange, len(in))
	for i, r := range in {
		rs[i] = candidates.NumberRange{Start: r.Start, End: r.End, Weight: r.Weight}
		out[i] = store.NumberRange{Start: r.Start, End: r.End, Weight: r.Weight}
	}
	if _, err := candidates.ParseNumberPool(rs); err != nil {
		var errs candidates.Errors
		if !errors.As(err, &errs) {
			return nil, invalid("ranges", "%s", err.Error())
		}
		mistakes := make([]error, len(errs))
		for i, e := range errs {
			mistakes[i] = invalid(e.Field, "%s", e.Message)
		}
		return nil, errors.Join(mistakes...)
	}
	return out, nil
}

// poolRow checks in against main, the default branch's schema, and
// returns the pool's row (without its id).
func poolRow(main schema.Schema, in PoolInput, ranges []store.NumberRange) (store.NumberPoolRow, error) {
	k, ok := main.Kind(in.Node)
	if !ok {
		return store.NumberPoolRow{}, invalid("node", "node: %s is not a kind of the default branch's schema", shownName(in.Node))
	}
	a, ok := main.Attribute(in.Node, in.NodeAttribute)
	switch {
	case !ok:
		return store.NumberPoolRow{}, invalid("node_attribute", "node_attribute: %s has no attribute %s", in.Node, shownName(in.NodeAttribute))
	case a.Kind != schema.Number:
		return store.NumberPoolRow{}, invalid("node_attribute", "node_attribute: %s.%s is of kind %s; a number pool allocates a Number attribute", in.Node, a.Name, a.Kind)
	}
	scope, err := scopeIDs(main, k, a, in.AllocationScope)
	if err != nil {
		return store.NumberPoolRow{}, err
	}
	return store.NumberPoolRow{Name: in.Name, Description: in.Description, KindID: k.ID, AttributeID: a.ID, Scope: scope, Ranges: ranges}, nil
}

// shownName quotes a name given, when it is empty.
func shownName(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// scopeIDs checks the scope elements of a pool of the kind k allocating
// the attribute a, and returns their ids; TestScopeRefusals holds the
// refusals.
func scopeIDs(main schema.Schema, k schema.Kind, a schema.Attribute, elements []string) ([]string, error) {
	kind := k.FullName()
	ids := []string{}
	for i, e := range elements {
		if slices.Contains(elements[:i], e) {
			return nil, invalid("allocation_scope", "allocation_scope: %q appears more than once", e)
		}
		if name, _, path := strings.Cut(e, "__"); path {
			return nil, invalid("allocation_scope", "allocation_scope: %q is a path; write the name, %s", e, name)
		}
		attr, isAttr := main.Attribute(kind, e)
		rel, isRel := main.Relationship(kind, e)
		switch {
		case !isAttr && !isRel && k.Generic && declaredByInheritor(main, kind, e):
			return nil, invalid("allocation_scope", "allocation_scope: %q is not declared on the generic %s", e, kind)
		case !isAttr && !isRel:
			return nil, invalid("allocation_scope", "allocation_scope: %q is not an attribute or a relationship of %s", e, kind)
		case isAttr && attr.ID == a.ID:
			return nil, invalid("allocation_scope", "allocation_scope: %q is the attribute the pool allocates; it cannot divide the pool", e)
		case isAttr && attr.Optional, isRel && rel.Optional:
			return nil, invalid("allocation_scope", "allocation_scope: %q is optional; a scope element must be required on %s", e, kind)
		case isRel && rel.Cardinality == schema.Many:
			return nil, invalid("allocation_scope", "allocation_scope: %q has cardinality many; a scope element must be a relationship of cardinality one", e)
		case isAttr && !scalar(attr.Kind):
			return nil, invalid("allocation_scope", "allocation_scope: %q is of kind %s; a scope element must hold a single scalar value", e, attr.Kind)
		case isAttr:
			ids = append(ids, attr.ID)
		default:
			ids = append(ids, rel.ID)
		}
	}
	if len(ids) > 0 && a.Unique {
		return nil, invalid("allocation_scope", "%s.%s is unique; a globally unique number cannot be allocated per division", kind, a.Name)
	}
	return ids, nil
}

// scalar reports whether attributes of the kind hold a single scalar value.
func scalar(k schema.AttributeKind) bool {
	return k != schema.List && k != schema.JSON && k != schema.Any
}

// declaredByInheritor reports whether a node inheriting from the generic
// has an attribute or a relationship called name.
func declaredByInheritor(s schema.Schema, generic, name string) bool {
	for _, node := range s.Inheritors(generic) {
		_, attr := s.Attribute(node, name)
		_, rel := s.Relationship(node, name)
		if attr || rel {
			return true
		}
	}
	return false
}

// poolOf returns the pool of row, named as the schema s (the default
// branch's) names its elements.
func poolOf(s schema.Schema, row store.NumberPoolRow) Pool {
	n := namesIn(s, row)
	p := Pool{ID: row.ID, Name: row.Name, Description: row.Description, Kind: n.kind, KindID: row.KindID, Attribute: n.attribute,
		AttributeID: row.AttributeID, Scope: make([]ScopeElement, len(row.Scope)), Ranges: make([]Range, len(row.Ranges)),
		CreatedAt: row.CreatedAt, CreatedBy: row.CreatedBy}
	for i, id := range row.Scope {
		e, _ := s.Element(id)
		p.Scope[i] = ScopeElement{ID: id, Name: n.scope[i], Relationship: e.Type == schema.RelationshipElement}
	}
	for i, r := range row.Ranges {
		p.Ranges[i] = Range(r)
	}
	return p
}

// recordExisting records the numbers the objects of the pool of row hold
// on every branch (schemas are the branches' schemas): every branch's live
// versions, and main's ended versions that a branch sees.
func recordExisting(ctx context.Context, tx *store.Tx, row store.NumberPoolRow, schemas []schema.Schema) error {
	var kinds []string
	for _, s := range schemas {
		for _, id := range nodesOf(s, row.KindID) {
			if !slices.Contains(kinds, id) {
				kinds = append(kinds, id)
			}
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	versions, err := store.KindVersions(ctx, tx, kinds)
	if err != nil {
		return err
	}
	var rows []store.HoldingRow
	for _, v := range versions {
		h := store.HoldingRow{Pool: row.ID, Branch: v.BranchID, Object: v.ID, FromSeq: v.FromSeq, ToSeq: v.ToSeq}
		if !v.Deleted {
			h.Division, h.Number, _ = holding(row, v.Data)
		}
		if h.Holds() || v.BranchID != store.MainBranchID {
			// On main, holding nothing is having no row; on another branch,
			// it is a row that hides main's.
			rows = append(rows, h)
		}
	}
	return store.InsertHoldings(ctx, tx, rows)
}

// UpdatePool changes the name, the description or the ranges of the pool
// id. A change of its scope is refused with "allocation_scope can't be
// changed after the pool is created", whatever else the update holds; so
// is one of its kind or attribute. Numbers held outside new ranges stay
// held, and no longer count in the figures.
func (s *Service) UpdatePool(ctx context.Context, actor auth.Actor, id string, in PoolUpdate) (Pool, error) {
	if !actor.IsOperator() {
		return Pool{}, notFound("number pool %s", id)
	}
	pid, ok := parseID(id)
	if !ok {
		return Pool{}, notFound("number pool %s", id)
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return Pool{}, err
	}
	var out Pool
	err = store.InTx(ctx, s.db, func(tx *store.Tx) error {
		row, err := store.LockNumberPool(ctx, tx, pid)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("number pool %s", id)
		}
		if err != nil {
			return err
		}
		before := poolOf(main, row)
		if in.AllocationScope != nil && !slices.Equal(in.AllocationScope, before.ScopeNames()) {
			return invalid("allocation_scope", "allocation_scope can't be changed after the pool is created")
		}
		if in.Node != nil && *in.Node != before.Kind {
			return invalid("node", "node can't be changed after the pool is created")
		}
		if in.NodeAttribute != nil && *in.NodeAttribute != before.Attribute {
			return invalid("node_attribute", "node_attribute can't be changed after the pool is created")
		}
		name, description, ranges := row.Name, row.Description, row.Ranges
		var mistakes []error
		if in.Name != nil {
			mistakes = append(mistakes, checkName(*in.Name))
			name = *in.Name
		}
		if in.Description != nil {
			mistakes = append(mistakes, checkDescription(*in.Description))
			description = *in.Description
		}
		if in.Ranges != nil {
			var err error
			ranges, err = parseRanges(in.Ranges)
			mistakes = append(mistakes, err)
		}
		if err := errors.Join(mistakes...); err != nil {
			return err
		}
		next := row
		next.Name, next.Description, next.Ranges = name, description, ranges
		row, err = store.UpdateNumberPool(ctx, tx, pid, name, description, ranges, store.AuditEntry{Actor: actor.Name, Action: audit.Update,
			ObjectKind: PoolKind, ObjectName: name, Before: store.JSON(before.audit()), After: store.JSON(poolOf(main, next).audit())})
		if errors.Is(err, store.ErrObjectExists) {
			return conflict("name", "a number pool named %s exists", name)
		}
		if err != nil {
			return err
		}
		out = poolOf(main, row)
		return nil
	})
	if err != nil {
		return Pool{}, err
	}
	s.views.forgetPool(pid)
	return out, nil
}

// DeletePool deletes the pool id with its records, and returns it as it
// was; objects keep their values.
func (s *Service) DeletePool(ctx context.Context, actor auth.Actor, id string) (Pool, error) {
	p, err := s.Pool(ctx, actor, id)
	if err != nil {
		return Pool{}, err
	}
	err = store.InTx(ctx, s.db, func(tx *store.Tx) error {
		err := store.DeleteNumberPool(ctx, tx, p.ID, store.AuditEntry{Actor: actor.Name, Action: audit.Delete, ObjectKind: PoolKind,
			ObjectName: p.Name, Before: store.JSON(p.audit())})
		if errors.Is(err, store.ErrNotFound) {
			return notFound("number pool %s", id)
		}
		return err
	})
	if err != nil {
		return Pool{}, err
	}
	s.views.forgetPool(p.ID)
	return p, nil
}

// Pool returns the pool id (its kind's and elements' names as the default
// branch's schema has them now); ErrNotFound when there is none, and to
// tenants.
func (s *Service) Pool(ctx context.Context, actor auth.Actor, id string) (Pool, error) {
	_, p, err := s.poolRow(ctx, actor, id)
	return p, err
}

// poolRow returns the pool id's row and the pool, for an operator.
func (s *Service) poolRow(ctx context.Context, actor auth.Actor, id string) (store.NumberPoolRow, Pool, error) {
	pid, ok := parseID(id)
	if !actor.IsOperator() || !ok {
		return store.NumberPoolRow{}, Pool{}, notFound("number pool %s", id)
	}
	row, err := store.NumberPool(ctx, s.db, pid)
	if errors.Is(err, store.ErrNotFound) {
		return store.NumberPoolRow{}, Pool{}, notFound("number pool %s", id)
	}
	if err != nil {
		return store.NumberPoolRow{}, Pool{}, err
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return store.NumberPoolRow{}, Pool{}, err
	}
	return row, poolOf(main, row), nil
}

// Pools returns a page of the pools f keeps, by name, limit at most
// (branch.MaxPage when 0) from offset on, and how many f keeps. Tenants see
// none.
func (s *Service) Pools(ctx context.Context, actor auth.Actor, f PoolFilter, limit, offset int) (PoolPage, error) {
	if !actor.IsOperator() {
		return PoolPage{}, nil
	}
	switch {
	case limit < 0 || limit > branch.MaxPage:
		return PoolPage{}, invalid("limit", "limit must be from 1 to %d, got %d", branch.MaxPage, limit)
	case offset < 0:
		return PoolPage{}, invalid("offset", "offset must be 0 or more, got %d", offset)
	case limit == 0:
		limit = branch.MaxPage
	}
	var ids []string
	if f.IDs != nil {
		ids = []string{}
		for _, id := range f.IDs {
			if pid, ok := parseID(id); ok {
				ids = append(ids, pid)
			}
		}
	}
	rows, count, err := store.NumberPools(ctx, s.db, store.NumberPoolFilter{IDs: ids, Name: f.Name, Limit: limit, Offset: offset})
	if err != nil {
		return PoolPage{}, err
	}
	main, err := s.branches.Schema(ctx, branch.Main)
	if err != nil {
		return PoolPage{}, err
	}
	out := PoolPage{Count: count, Pools: make([]Pool, len(rows))}
	for i, r := range rows {
		out.Pools[i] = poolOf(main, r)
	}
	return out, nil
}
