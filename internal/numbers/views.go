package numbers

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// views holds this process's pools and its view of the taken numbers of
// each division it claims in. A view only speeds up the search for the
// lowest free number: the database's primary key on (pool, division,
// number) decides every claim, so a stale view costs a retry, never a
// duplicate.
//
// A view learns of claims made here at once, of claims and numbers given
// elsewhere from the conflicts they cause, and of numbers freed here (by
// the recorder, in the freeing transaction) and elsewhere (from the
// database's notifications); when notifications may have been missed (the
// listener reconnected), every view and pool is loaded afresh.
type views struct {
	s *Service

	mu        sync.Mutex
	pools     map[string]*poolState     // by pool id
	divisions map[viewKey]*divisionView // loaded or being loaded
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

// divisionView is the taken set of one division of a pool. Numbers being
// claimed right now by this process count as taken, so that concurrent
// claims try different numbers.
type divisionView struct {
	mu     sync.Mutex
	loaded bool
	taken  candidates.NumberSetBuilder
}

func newViews(s *Service) *views {
	return &views{s: s, pools: map[string]*poolState{}, divisions: map[viewKey]*divisionView{}}
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
	for k := range v.divisions {
		if k.pool == id {
			delete(v.divisions, k)
		}
	}
}

// forgetAll drops every pool and view.
func (v *views) forgetAll() {
	v.mu.Lock()
	defer v.mu.Unlock()
	clear(v.pools)
	clear(v.divisions)
}

// division returns the view of the division of the pool, loaded through q
// on first use.
func (v *views) division(ctx context.Context, q store.Ext, pool string, division json.RawMessage) (*divisionView, error) {
	k := viewKey{pool, string(division)}
	v.mu.Lock()
	dv, ok := v.divisions[k]
	if !ok {
		dv = &divisionView{}
		v.divisions[k] = dv
	}
	v.mu.Unlock()
	dv.mu.Lock()
	defer dv.mu.Unlock()
	if dv.loaded {
		return dv, nil
	}
	return dv, dv.loadLocked(ctx, q, pool, division)
}

// reload reads the division's taken set afresh through q.
func (dv *divisionView) reload(ctx context.Context, q store.Ext, pool string, division json.RawMessage) error {
	dv.mu.Lock()
	defer dv.mu.Unlock()
	return dv.loadLocked(ctx, q, pool, division)
}

func (dv *divisionView) loadLocked(ctx context.Context, q store.Ext, pool string, division json.RawMessage) error {
	nums, err := store.TakenNumbers(ctx, q, pool, division)
	if err != nil {
		return err
	}
	var b candidates.NumberSetBuilder
	for _, n := range nums {
		b.Add(n)
	}
	dv.taken, dv.loaded = b, true
	return nil
}

// reserve returns the first number of space, in the order it hands them
// out, that the view holds free, and marks it taken.
func (dv *divisionView) reserve(space candidates.NumberPool) (int64, bool) {
	dv.mu.Lock()
	defer dv.mu.Unlock()
	n, ok := space.First(dv.taken.View())
	if ok {
		dv.taken.Add(n)
	}
	return n, ok
}

// mark marks n taken.
func (dv *divisionView) mark(n int64) {
	dv.mu.Lock()
	defer dv.mu.Unlock()
	dv.taken.Add(n)
}

// free marks n free.
func (dv *divisionView) free(n int64) {
	dv.mu.Lock()
	defer dv.mu.Unlock()
	dv.taken.Remove(n)
}

// freed marks the numbers of keys free in the views that hold them: a
// number freed here or elsewhere. A number still taken by something else
// costs the next claim of it a retry.
func (v *views) freed(keys []store.NumberKey) {
	for _, k := range keys {
		v.mu.Lock()
		dv := v.divisions[viewKey{k.Pool, string(k.Division)}]
		v.mu.Unlock()
		if dv != nil {
			dv.free(k.Number)
		}
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
