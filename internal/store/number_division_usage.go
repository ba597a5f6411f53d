package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// DivisionUsage is a division of a pool and how many different numbers
// shown in it lie in the pool's ranges.
type DivisionUsage struct {
	Division json.RawMessage // canonical
	Used     int64
}

// DivisionsByUsage returns a page of the divisions of the pool where a
// branch shows an object holding a number (as NumberDivisions), each with
// the count of the different numbers shown in it that lie in the pool's
// ranges, most used first (least used first when leastFirst), ties by
// division, limit at most from offset on; and how many divisions there
// are. It first folds the divisions marked since the last read
// (FoldDivisionUsage), then reads the page's rows of number_division_usage
// alone: its cost grows with the writes since the last read and the page,
// not with the pool.
func DivisionsByUsage(ctx context.Context, db *DB, pool string, leastFirst bool, limit, offset int) ([]DivisionUsage, int, error) {
	if err := FoldDivisionUsage(ctx, db, pool); err != nil {
		return nil, 0, err
	}
	order := "used DESC, division"
	if leastFirst {
		order = "used, division DESC"
	}
	var scans []struct {
		Division []byte `db:"division"`
		Used     int64  `db:"used"`
		Total    int    `db:"total"`
	}
	if err := db.SelectContext(ctx, &scans, `SELECT division, used, `+divisionTotalSQL+` AS total FROM number_division_usage WHERE pool_id = $1
		ORDER BY pool_id, `+order+` LIMIT $2 OFFSET $3`, pool, limit, offset); err != nil {
		return nil, 0, fmt.Errorf("store: unable to read the divisions of pool %s: %w", pool, classify(err))
	}
	var total int
	if len(scans) > 0 {
		total = scans[0].Total
	} else if err := db.GetContext(ctx, &total, `SELECT `+divisionTotalSQL, pool); err != nil {
		return nil, 0, fmt.Errorf("store: unable to count the divisions of pool %s: %w", pool, classify(err))
	}
	out := make([]DivisionUsage, len(scans))
	for i, s := range scans {
		d, err := Canonical(s.Division)
		if err != nil {
			return nil, 0, fmt.Errorf("store: a division of pool %s cannot be read: %w", pool, err)
		}
		out[i] = DivisionUsage{Division: d, Used: s.Used}
	}
	return out, total, nil
}

// FoldDivisionUsage recounts the divisions of the pool that writes marked
// in number_division_dirty since the last fold, from what the branches
// show of number_holdings, into number_division_usage, and deletes the
// marks it read. Writers only insert marks; folds of one pool take turns
// on an advisory lock, and each counts in a snapshot taken once the lock
// is held, so that a fold never overwrites a later one's count. A mark
// committed after the fold's snapshot stays for the next fold. The pool's
// ranges are read in the same snapshot as its marks: new ranges mark every
// division of the pool.
func FoldDivisionUsage(ctx context.Context, db *DB, pool string) error {
	var marked bool
	if err := db.GetContext(ctx, &marked, `SELECT EXISTS (SELECT 1 FROM number_division_dirty WHERE pool_id = $1)`, pool); err != nil {
		return fmt.Errorf("store: unable to read the usage of pool %s: %w", pool, classify(err))
	}
	if !marked {
		return nil
	}
	err := InTx(ctx, db, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('number_division_usage ' || $1, 0))`, pool); err != nil {
			return err
		}
		var recounted int
		if err := tx.GetContext(ctx, &recounted, foldDivisionUsageSQL, pool); err != nil {
			return err
		}
		if recounted >= analyzeAfter {
			// Many rows came at once (a pool made for a kind with objects,
			// a migration): without statistics, the page's read would sort
			// every division of the pool instead of reading its index.
			_, err := tx.ExecContext(ctx, `ANALYZE number_division_usage`)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: unable to count the divisions of pool %s: %w", pool, err)
	}
	return nil
}

// divisionTotalSQL is how many divisions of pool $1 number_division_usage
// holds.
const divisionTotalSQL = `coalesce((SELECT divisions FROM number_division_totals WHERE pool_id = $1), 0)`

// analyzeAfter is how many divisions one fold recounts before it gathers
// the statistics of number_division_usage.
const analyzeAfter = 1000

// foldDivisionUsageSQL deletes the marks of pool $1 and recounts each
// division they name, as shownSQL shows it: a division that shows no
// number any more loses its row.
const foldDivisionUsageSQL = `WITH spans AS (
		SELECT coalesce(range_agg(int8range((r->>'start')::bigint, (r->>'end')::bigint, '[]')), '{}') AS numbers
		FROM number_pools p, jsonb_array_elements(p.ranges) r WHERE p.id = $1
	), marks AS (
		DELETE FROM number_division_dirty WHERE pool_id = $1 RETURNING division
	), counted AS (
		SELECT m.division, c.held, c.used FROM (SELECT DISTINCT division FROM marks) m, LATERAL (
			SELECT count(*) AS held, count(*) FILTER (WHERE (SELECT numbers FROM spans) @> n.number) AS used
			FROM (SELECT DISTINCT h.number FROM number_holdings h
				WHERE h.pool_id = $1 AND h.division = m.division AND h.number IS NOT NULL
					AND (h.to_seq IS NULL OR EXISTS (SELECT 1 FROM branches b
						WHERE b.id <> 1 AND h.from_seq <= b.branched_from AND b.branched_from < h.to_seq
							AND NOT EXISTS (SELECT 1 FROM number_holdings s
								WHERE s.pool_id = h.pool_id AND s.branch_id = b.id AND s.object_id = h.object_id AND s.to_seq IS NULL)))
			) n
		) c
	), kept AS (
		INSERT INTO number_division_usage (pool_id, division, held, used)
		SELECT $1, division, held, used FROM counted WHERE held > 0
		ON CONFLICT (pool_id, division) DO UPDATE SET held = EXCLUDED.held, used = EXCLUDED.used
		RETURNING xmax = 0 AS added
	), dropped AS (
		DELETE FROM number_division_usage u USING counted c
		WHERE u.pool_id = $1 AND u.division = c.division AND c.held = 0
		RETURNING 1
	), counts AS (
		SELECT (SELECT count(*) FROM counted) AS recounted,
			(SELECT count(*) FILTER (WHERE added) FROM kept) - (SELECT count(*) FROM dropped) AS change
	), totals AS (
		INSERT INTO number_division_totals (pool_id, divisions) SELECT $1, change FROM counts
		ON CONFLICT (pool_id) DO UPDATE SET divisions = number_division_totals.divisions + EXCLUDED.divisions
	)
	SELECT recounted FROM counts`

// MarkedNumberPools returns the ids of the pools that have divisions
// marked since their last fold.
func MarkedNumberPools(ctx context.Context, db *DB) ([]string, error) {
	var ids []string
	if err := db.SelectContext(ctx, &ids, `SELECT id FROM number_pools p
		WHERE EXISTS (SELECT 1 FROM number_division_dirty d WHERE d.pool_id = p.id) ORDER BY id`); err != nil {
		return nil, fmt.Errorf("store: unable to read the number pools to count: %w", classify(err))
	}
	return ids, nil
}
