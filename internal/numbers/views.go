package numbers

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/claim"
	"pivirt.hu/ipam/internal/store"
)

// views holds this process's pools and its view of the taken numbers of
// each division it claims in (claim.Views, by pool and division). A view
// only speeds up the search for the lowest free number: the database's
// primary key on (pool, division, number) decides every claim, so a stale
// view costs a retry, never a duplicate.
//
// A view learns of claims made here at once, of claims and numbers given
// elsewhere from the conflicts they cause, and of numbers freed here (by
// the recorder, in the freeing transaction) and elsewhere (from the
// database's notifications); when notifications may have been missed (the
// listener reconnected), every view and pool is loaded afresh; and every
// loaded view is read afresh every claim.RefreshEvery (docs/allocation.md,
// "How the views stay fresh").
type views struct {
	s *Service

	mu        sync.Mutex
	pools     map[string]*poolState // by pool id
	divisions *claim.Views[viewKey, int64, candidates.NumberSet]
}

// A viewKey names a division of a pool: the division is its canonical
// JSON list of values.
type viewKey struct {
	pool, division string
}

// poolState is a pool as claims use it: its row and its ranges parsed.
// It is immutable: a change of the pool makes another.
type poolState struct {
	row   store.NumberPoolRow
	space candidates.NumberPool
}

// divisionView is the taken set of one division of a pool.
type divisionView = claim.View[int64, candidates.NumberSet]

func newViews(s *Service) *views {
	return &views{s: s, pools: map[string]*poolState{}, divisions: claim.NewViews(claim.ViewsConfig[viewKey, int64, candidates.NumberSet]{
		New: func() claim.Set[int64, candidates.NumberSet] { return &candidates.NumberSetBuilder{} },
		Load: func(ctx context.Context, k viewKey) ([]int64, error) {
			return store.TakenNumbers(ctx, s.db, k.pool, json.RawMessage(k.division))
		},
		Log: s.log,
	})}
}

// pool returns the pool id as cached, reading it when it is not (through
// q, a transaction when a claim asks); store.ErrNotFound when it is gone.
func (v *views) pool(ctx context.Context, q store.Ext, id string) (*poolState, error) {
	v.mu.Lock()
	p := v.pools[id]
	v.mu.Unlock()
	if p != nil {
		return p, nil
	}
	row, err := store.NumberPool(ctx, q, id)
	if err != nil {
		return nil, err
	}
	p, err = newPoolState(row)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	v.pools[id] = p
	v.mu.Unlock()
	return p, nil
}

// newPoolState parses the ranges of row.
func newPoolState(row store.NumberPoolRow) (*poolState, error) {
	space, err := candidates.ParseNumberPool(numberRanges(row.Ranges))
	if err != nil {
		return nil, err
	}
	return &poolState{row: row, space: space}, nil
}

// numberRanges returns the ranges as the enumerator takes them.
func numberRanges(rs []store.NumberRange) []candidates.NumberRange {
	out := make([]candidates.NumberRange, len(rs))
	for i, r := range rs {
		out[i] = candidates.NumberRange{Start: r.Start, End: r.End, Weight: r.Weight}
	}
	return out
}

// forgetPool drops the pool id and the views of its divisions; they are
// read again on next use.
func (v *views) forgetPool(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.pools, id)
	v.divisions.ForgetIf(func(k viewKey) bool { return k.pool == id })
}

// forgetAll drops every pool and view.
func (v *views) forgetAll() {
	v.mu.Lock()
	defer v.mu.Unlock()
	clear(v.pools)
	v.divisions.ForgetAll()
}

// division returns the view of the division of the pool, loaded through q
// on first use.
func (v *views) division(ctx context.Context, q store.Ext, pool string, division json.RawMessage) (*divisionView, error) {
	return v.divisions.GetThrough(ctx, viewKey{pool, string(division)}, takenThrough(q, pool, division))
}

// takenThrough reads the taken numbers of the division of the pool
// through q.
func takenThrough(q store.Ext, pool string, division json.RawMessage) claim.Loader[int64] {
	return func(ctx context.Context) ([]int64, error) { return store.TakenNumbers(ctx, q, pool, division) }
}

// freed marks the numbers of keys free in the views that hold them: a
// number freed here or elsewhere. A number still taken by something else
// costs the next claim of it a retry.
func (v *views) freed(keys []store.NumberKey) {
	for _, k := range keys {
		v.divisions.Free(viewKey{k.Pool, string(k.Division)}, k.Number)
	}
}

// notified applies a notification of channel: "<pool id> <number>
// <division>" frees the number, "<pool id>" drops the pool and its views,
// a reconnection drops everything.
func (v *views) notified(n store.Notification) {
	if n.Reconnected {
		v.forgetAll()
		return
	}
	pool, rest, one := strings.Cut(n.Payload, " ")
	if !one {
		v.forgetPool(pool)
		return
	}
	num, division, _ := strings.Cut(rest, " ")
	number, err := strconv.ParseInt(num, 10, 64)
	d, cerr := store.Canonical(json.RawMessage(division))
	if err != nil || cerr != nil {
		v.forgetPool(pool)
		return
	}
	v.freed([]store.NumberKey{{Pool: pool, Division: d, Number: number}})
}
