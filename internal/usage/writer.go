package usage

import (
	"context"
	"log/slog"
	"time"
)

// How often ipam serve writes the usage history, and prunes it.
const (
	RecordEvery = 15 * time.Minute
	PruneEvery  = 24 * time.Hour
)

// A Recorder writes the usage of its spaces into the history as of now,
// and counts their claims and releases in the hours from since's (the
// previous write; zero: now's hour alone) to now's: ipam.Service (pools
// and subnets), numbers.Service (divisions).
type Recorder interface {
	RecordUsage(ctx context.Context, now, since time.Time) error
}

// A Writer writes the usage history of every kind of space: each round
// (Round) it has every Recorder write, then prunes the history when
// PruneEvery has passed since it last did. Run makes a round at once and
// every RecordEvery. It is the one loop that writes the history, in ipam
// serve; tests make its rounds themselves, at the times they choose.
type Writer struct {
	Recorders []Recorder
	// Prune drops the rows past their keeping at now, and those of spaces
	// that are gone (store.PruneUsageHistory).
	Prune func(ctx context.Context, now time.Time) error
	Log   *slog.Logger

	// written is when each Recorder last wrote; pruned when the history
	// was last pruned.
	written []time.Time
	pruned  time.Time
}

// Round has every Recorder write the history as of now, counting the
// changes since its last write (the first round counts the hour before
// now too, which the last write of a process that stopped may have left
// short), then prunes when due. A failure is logged, and the next round
// writes the hour: a Recorder that failed counts from its last write that
// did not.
func (w *Writer) Round(ctx context.Context, now time.Time) {
	if w.written == nil {
		w.written = make([]time.Time, len(w.Recorders))
		for i := range w.written {
			w.written[i] = now.Add(-time.Hour)
		}
	}
	for i, r := range w.Recorders {
		if err := r.RecordUsage(ctx, now, w.written[i]); err != nil && ctx.Err() == nil {
			w.Log.Warn("Recording the usage history failed; the next round, in 15 minutes, writes the hour", "err", err)
		} else {
			w.written[i] = now
		}
	}
	if now.Sub(w.pruned) >= PruneEvery {
		if err := w.Prune(ctx, now); err != nil && ctx.Err() == nil {
			w.Log.Warn("Pruning the usage history failed; the next round tries again", "err", err)
		} else {
			w.pruned = now
		}
	}
}

// Run makes a round at once and then one at every tick of ticks (a
// ticker of RecordEvery in ipam serve), each as of now(), until ctx ends.
func (w *Writer) Run(ctx context.Context, ticks <-chan time.Time, now func() time.Time) {
	for {
		w.Round(ctx, now())
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
	}
}
