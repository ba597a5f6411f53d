package ipam

import (
	"time"

	"pivirt.hu/ipam/internal/routing"
)

// An Observer is told what the service does, for its metrics
// (internal/metrics); its methods must be cheap and safe for concurrent
// use.
type Observer interface {
	// Claimed is told of each claim this process made, with how long it
	// took and its result: ClaimOK, ClaimConflictRetry, ClaimExhausted,
	// ClaimQuotaExceeded or ClaimError.
	Claimed(result string, took time.Duration)
	// LostRace is told of each candidate a claim found taken when it
	// inserted it (the claim then tries the next).
	LostRace()
	// Released is told of each release: ReleaseOK (also when nothing was
	// held) or ClaimError.
	Released(result string)
	// ViewLoaded is told each time a view of a pool's taken addresses is
	// read from the database (first use, reload, periodic refresh).
	ViewLoaded()
	// Notified is told of each notification received from the other
	// processes (releases, deletions).
	Notified()
}

// The results of claims and releases, as Observer is told them.
const (
	// ClaimOK: the claim got its address at its first candidate (or the
	// address its owner held).
	ClaimOK = "ok"
	// ClaimConflictRetry: the claim got its address after losing a race
	// for one or more candidates.
	ClaimConflictRetry = "conflict_retry"
	// ClaimExhausted: no candidate was left.
	ClaimExhausted = "exhausted"
	// ClaimQuotaExceeded: the owner's namespace holds the limit of a quota
	// of addresses already.
	ClaimQuotaExceeded = "quota_exceeded"
	// ClaimError: the claim or release failed (not found, the database
	// unavailable, a refusal).
	ClaimError = "error"
	// ReleaseOK: the release was made, or nothing was held.
	ReleaseOK = "ok"
)

// noObserver observes nothing.
type noObserver struct{}

func (noObserver) Claimed(string, time.Duration) {}
func (noObserver) LostRace()                     {}
func (noObserver) Released(string)               {}
func (noObserver) ViewLoaded()                   {}
func (noObserver) Notified()                     {}

// ClaimStats counts how this process's claims were made so far, for the
// metrics.
type ClaimStats struct {
	// SharedStatements are the statements that inserted several claims'
	// rows (inserts.go), SharedInserts the rows they inserted.
	SharedStatements, SharedInserts int64
	// Routing counts the claims sent to their pool's owner process, those
	// other processes sent to this one, those made here because their pool's
	// owner could not be reached or did not answer in time, and the route
	// link's refused connections and failed accepts (internal/routing); zero
	// without routing.
	Routing routing.Stats
}

// ClaimStats returns the counts so far.
func (s *Service) ClaimStats() ClaimStats {
	c := ClaimStats{SharedStatements: s.inserts.batches.Load(), SharedInserts: s.inserts.batched.Load()}
	if s.router != nil {
		c.Routing = s.router.Stats()
	}
	return c
}
