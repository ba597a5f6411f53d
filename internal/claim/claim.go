// Package claim is the one claim engine of PiVirt IPAM: the loop that
// hands out the lowest free value of a space (an address of a pool, a
// number of a division of a number pool) under the database's unique
// index, and the process's views of what is taken, which propose the
// candidates (docs/allocation.md, "One claim engine").
//
// A kind of space supplies only what differs (a Claimant): its candidates,
// its insert and its conflict query. The engine does the rest the same way
// for every kind: it reserves a candidate in the view, inserts it, asks why
// when the insert stored nothing, keeps or frees the candidate or answers
// what the claimant holds already, goes on in a space that changed, reads
// the view afresh once before it declares the space exhausted, checks its
// context at every attempt and bounds its attempts.
//
// It imports the standard library only, so that the domains (internal/ipam,
// internal/numbers) share it and a third kind of space (128-bit addresses)
// slots in as one more Claimant.
package claim

import (
	"context"
	"errors"
	"fmt"
)

var (
	// ErrExhausted is the answer of a claim whose space has no free
	// candidate, after the view was read afresh: each domain turns it into
	// its own refusal (ipam.ExhaustedError, numbers.ExhaustedError).
	ErrExhausted = errors.New("claim: no free candidate")

	// ErrNotStored is what a Claimant's Insert answers when its statement
	// stored nothing because of the unique index (or of a guard of the
	// statement, such as a pool's spec version): the engine then asks the
	// Claimant's Conflict why.
	ErrNotStored = errors.New("claim: the insert stored nothing")
)

// maxAttempts bounds the attempts of one claim: inserts, and new starts in
// a space that changed. A claim that reaches it answers a *ContendedError.
const maxAttempts = 256

// maxFreeTries bounds how many times one claim tries again a candidate
// that was found free again (released between the insert and the
// question): past it, the candidate counts as taken.
const maxFreeTries = 8

// staleAfter is the count of lost races after which a claim reads its
// view afresh, once: the view missed that many claims of other processes
// (which send no notification), and the next candidates are likely taken
// too. It counts as the claim's one reload.
const staleAfter = 32

// A ContendedError says that a claim gave up after maxAttempts attempts,
// other claims taking its candidates meanwhile.
type ContendedError struct {
	Attempts int
}

func (e *ContendedError) Error() string {
	return fmt.Sprintf("other claims took the candidates of %d attempts in a row; try again", e.Attempts)
}

// A Verdict is why an insert stored nothing, as a Claimant's conflict
// query reads it.
type Verdict int

const (
	// Taken: another claim holds the candidate. It stays taken in the
	// view, and the next candidate is tried.
	Taken Verdict = iota
	// Free: nobody holds the candidate (any more). It is free again in
	// the view and tried again, at most maxFreeTries times in one claim.
	Free
	// Changed: the space changed since the claim read it (a pool's spec,
	// a number pool's revision), and the Claimant made its candidates
	// again. The candidate is free in the old view, and the claim goes on
	// in the space's new candidates (Claimant.Space).
	Changed
	// Answered: the claim has its answer another way (the claimant holds
	// a value already; a quota wants the claim made under its lock):
	// Conflict.Answer gives it, once the view has freed the candidate if
	// Conflict.Free says so.
	Answered
)

// A Conflict is the answer of a Claimant's conflict query.
type Conflict[A any] struct {
	Verdict Verdict
	// Free says, for Answered, that nobody holds the candidate: the view
	// frees it.
	Free bool
	// Answer answers the claim, for Answered.
	Answer func(context.Context) (A, error)
}

// A Claimant is one claim in a kind of space: V is the kind's values
// (netip.Addr, int64), R the taken set its views hand its candidates
// (candidates.Set, candidates.NumberSet), A the claim's answer.
type Claimant[V comparable, R, A any] interface {
	// Space returns the view the claim reserves its candidates in, and
	// its candidates: the first value not in a taken set, in the order
	// the space hands them out. It is called when the claim starts and
	// after every change of the space.
	Space(ctx context.Context) (*View[V, R], func(taken R) (V, bool), error)
	// Insert stores the claim of v: one statement that may write much
	// more than one row, in the claim's transaction or outside one. It
	// answers ErrNotStored when it stored nothing because of the unique
	// index; any other error ends the claim (v is freed in the view).
	Insert(ctx context.Context, v V) (A, error)
	// Stored is told that the claim of v was stored in view: a claim in a
	// transaction frees it in the view when the transaction fails.
	Stored(view *View[V, R], v V)
	// Conflict says why the insert of v stored nothing. An error ends
	// the claim (v is freed in the view).
	Conflict(ctx context.Context, v V) (Conflict[A], error)
	// Lost is told that v was lost to another claim (Taken, or Free and
	// tried again): the domain counts its races.
	Lost(v V)
	// Held answers, when the view has no candidate left, with what the
	// claimant holds in the space already, if anything.
	Held(ctx context.Context) (A, bool, error)
	// Respecify reports, when the view has no candidate left, whether the
	// space changed since the claim read it, and then makes the claim's
	// candidates again.
	Respecify(ctx context.Context) (bool, error)
	// Taken reads the taken values of the space afresh, through the
	// claim's transaction when it has one.
	Taken(ctx context.Context) ([]V, error)
}

// Run makes the claim c: the lowest free candidate of its space that its
// insert stores, or what the claimant holds already. Refusals: ctx's error
// (checked at every attempt), ErrExhausted, a *ContendedError, and the
// Claimant's own errors.
func Run[V comparable, R, A any](ctx context.Context, c Claimant[V, R, A]) (A, error) {
	var zero A
	view, first, err := c.Space(ctx)
	if err != nil {
		return zero, err
	}
	reloaded, lost := false, 0
	var freeTries map[V]int
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		if attempt > maxAttempts {
			return zero, &ContendedError{Attempts: maxAttempts}
		}
		if lost >= staleAfter && !reloaded {
			if err := view.Refresh(ctx, c.Taken); err != nil {
				return zero, err
			}
			reloaded = true
		}
		v, ok := view.Reserve(first)
		if !ok {
			if held, found, err := c.Held(ctx); err != nil || found {
				return held, err
			}
			changed, err := c.Respecify(ctx)
			if err != nil {
				return zero, err
			}
			switch {
			case changed:
				if view, first, err = c.Space(ctx); err != nil {
					return zero, err
				}
				continue
			case reloaded:
				return zero, ErrExhausted
			}
			// The view may miss values freed elsewhere: read it afresh
			// once before saying the space is full.
			if err := view.Refresh(ctx, c.Taken); err != nil {
				return zero, err
			}
			reloaded = true
			continue
		}
		a, err := c.Insert(ctx, v)
		if err == nil {
			c.Stored(view, v)
			return a, nil
		}
		if !errors.Is(err, ErrNotStored) {
			view.Free(v)
			return zero, err
		}
		why, err := c.Conflict(ctx, v)
		if err != nil {
			view.Free(v)
			return zero, err
		}
		switch why.Verdict {
		case Answered:
			if why.Free {
				view.Free(v)
			}
			return why.Answer(ctx)
		case Changed:
			view.Free(v)
			if view, first, err = c.Space(ctx); err != nil {
				return zero, err
			}
			continue
		case Free:
			if freeTries == nil {
				freeTries = map[V]int{}
			}
			if freeTries[v] < maxFreeTries {
				freeTries[v]++
				view.Free(v)
			}
		}
		// Taken, or free too often: v stays taken in the view.
		lost++
		c.Lost(v)
	}
}
