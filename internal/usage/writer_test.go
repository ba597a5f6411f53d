package usage

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"
)

// recorder records the rounds it was asked to write, and fails those of
// the times in fail.
type recorder struct {
	calls [][2]time.Time // now, since
	fail  map[time.Time]bool
}

func (r *recorder) RecordUsage(_ context.Context, now, since time.Time) error {
	r.calls = append(r.calls, [2]time.Time{now, since})
	if r.fail[now] {
		return errors.New("the database is unavailable")
	}
	return nil
}

// TestWriterRounds: each round has every recorder write as of its time,
// counting from its last write that did not fail (an hour before the first
// round's time at first), and prunes at the first round and then once a
// PruneEvery has passed.
func TestWriterRounds(t *testing.T) {
	start := time.Date(2025, 3, 1, 10, 5, 0, 0, time.UTC)
	at := func(rounds int) time.Time { return start.Add(time.Duration(rounds) * RecordEvery) }
	addresses := &recorder{}
	numbers := &recorder{fail: map[time.Time]bool{at(1): true}}
	var pruned []time.Time
	w := &Writer{Recorders: []Recorder{addresses, numbers}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Prune: func(_ context.Context, now time.Time) error { pruned = append(pruned, now); return nil }}
	perDay := int(PruneEvery / RecordEvery)
	for i := range perDay + 1 {
		w.Round(t.Context(), at(i))
	}
	for name, tt := range map[string]struct {
		r    *recorder
		want [][2]time.Time
	}{
		"addresses": {addresses, [][2]time.Time{{at(0), at(0).Add(-time.Hour)}, {at(1), at(0)}, {at(2), at(1)}}},
		// The round at(1) failed: the next counts from at(0).
		"numbers": {numbers, [][2]time.Time{{at(0), at(0).Add(-time.Hour)}, {at(1), at(0)}, {at(2), at(0)}}},
	} {
		if len(tt.r.calls) != perDay+1 || !slices.Equal(tt.r.calls[:3], tt.want) {
			t.Errorf("%s: %d rounds, the first %v; want %d, the first %v", name, len(tt.r.calls), tt.r.calls[:min(3, len(tt.r.calls))], perDay+1, tt.want)
		}
	}
	if want := []time.Time{at(0), at(perDay)}; !slices.Equal(pruned, want) {
		t.Errorf("pruned at %v, want %v", pruned, want)
	}
}

// TestWriterRun: Run makes a round at once, then one at each tick, as of
// its clock, and returns when its context ends.
func TestWriterRun(t *testing.T) {
	r := &recorder{}
	w := &Writer{Recorders: []Recorder{r}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Prune: func(context.Context, time.Time) error { return nil }}
	clock := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		w.Run(ctx, ticks, now)
		close(done)
	}()
	// The unbuffered channel hands a tick over only once the round
	// before it is written, and the round of the last tick is written
	// before Run sees its context end.
	ticks <- clock
	ticks <- clock
	cancel()
	<-done
	if len(r.calls) != 3 {
		t.Errorf("%d rounds after the start and two ticks, want 3", len(r.calls))
	}
}
