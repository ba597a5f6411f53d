package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// DivisionUsage is a division of a pool and how many different numbers
// shown in it lie in the pool's ranges.
type DivisionUsage struct {
	Division json.RawMessage // canonical
	Used     int64
}

// A DivisionPageQuery asks for a page of a pool's divisions, as
// number_division_usage holds them.
type DivisionPageQuery struct {
	// Search keeps the divisions one of whose labels or values holds it,
	// case ignored (searchText); "" keeps all.
	Search string
	// Entry is the index in the scope of the entry to sort by its label
	// (whole numbers first, by value, then text, case ignored first, then
	// as written: sortKey); -1 sorts by usage, most used first. Ties by
	// division.
	Entry int
	// Reverse reverses the order.
	Reverse bool
	Limit   int
	Offset  int
}

// DivisionPage returns the page of the divisions of the pool that q asks
// for, with their usage, and how many divisions match. It reads
// number_division_usage as it is: fold the pool's marks first
// (FoldDivisionUsage). By usage or by the first entry, without a search,
// it reads the page's rows alone, through an index; a search, or an order
// by another entry, reads every division's row of the pool once.
func DivisionPage(ctx context.Context, db *DB, pool string, q DivisionPageQuery) ([]DivisionUsage, int, error) {
	type key struct {
		expr string
		desc bool
	}
	keys := []key{{"pool_id", false}, {"used", true}, {"division", false}}
	if q.Entry >= 0 {
		keys = []key{{"pool_id", false}, {fmt.Sprintf(`(sort_keys[%d] COLLATE "C")`, q.Entry+1), false}, {`(division::text COLLATE "C")`, false}}
	}
	order := make([]string, len(keys))
	for i, k := range keys {
		order[i] = k.expr
		if k.desc != q.Reverse {
			order[i] += " DESC"
		}
	}
	where, args, total := "pool_id = $1", []any{pool}, divisionTotalSQL
	if q.Search != "" {
		where += ` AND search LIKE $2`
		args, total = append(args, "%"+likeEscaper.Replace(strings.ToLower(q.Search))+"%"), "count(*) OVER ()"
	}
	var scans []struct {
		Division []byte `db:"division"`
		Used     int64  `db:"used"`
		Total    int    `db:"total"`
	}
	page := fmt.Sprintf(" LIMIT $%d OFFSET $%d", len(args)+1, len(args)+2)
	if err := db.SelectContext(ctx, &scans, `SELECT division, used, `+total+` AS total FROM number_division_usage
		WHERE `+where+` ORDER BY `+strings.Join(order, ", ")+page, append(args, q.Limit, q.Offset)...); err != nil {
		return nil, 0, fmt.Errorf("store: unable to read the divisions of pool %s: %w", pool, classify(err))
	}
	var count int
	if len(scans) > 0 {
		count = scans[0].Total
	} else if err := db.GetContext(ctx, &count, `SELECT count(*) FROM number_division_usage WHERE `+where, args...); err != nil {
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
	return out, count, nil
}

// sortKey writes a division's label so that the order of the keys as bytes
// is the page's order of the labels: whole numbers first (up to 18 digits,
// by value: "0", then "0" for a negative number and "1" for another, then
// the number's offset in 19 digits), then text ("1", the text in lower
// case, "\x01", the text as written).
func sortKey(label string) string {
	if n, err := strconv.ParseInt(label, 10, 64); err == nil && len(strings.TrimPrefix(label, "-")) <= 18 && label == strconv.FormatInt(n, 10) {
		if n < 0 {
			return fmt.Sprintf("00%019d", n+1e18)
		}
		return fmt.Sprintf("01%019d", n)
	}
	return "1" + strings.ToLower(label) + "\x01" + label
}

// searchText is what a search of a division's entries reads: its labels
// and its values (a string as it is, anything else as its JSON), in lower
// case, separated by the unit separator U+001F, so that a search matches
// within one of them (unless it holds that control character itself).
func searchText(division json.RawMessage, labels []string) string {
	var values []json.RawMessage
	_ = json.Unmarshal(division, &values)
	parts := slices.Clone(labels)
	for _, v := range values {
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		parts = append(parts, s)
	}
	return strings.ToLower(strings.Join(parts, "\x1f"))
}

// likeEscaper escapes what LIKE reads as a pattern.
var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// A DivisionLabeler returns the labels of each of the divisions of a pool,
// in the scope's order: a peer's display label, an attribute's value.
type DivisionLabeler func(ctx context.Context, divisions []json.RawMessage) ([][]string, error)

// FoldDivisionUsage recounts the divisions of the pool that writes marked
// in number_division_dirty since the last fold, from what the branches
// show of number_holdings, into number_division_usage, and deletes the
// marks it read. Writers only insert marks; folds of one pool take turns
// on an advisory lock, and each counts in a snapshot taken once the lock
// is held, so that a fold never overwrites a later one's count. A mark
// committed after the fold's snapshot stays for the next fold.
//
// A writer marks the divisions whose rows it sees; a division this fold
// counts for the first time has a row no writer sees before the fold
// commits. So the fold holds what such a writer would change, from before
// it reads until it commits: the pool's row shared (FOR SHARE: new ranges
// wait for the fold, or the fold for them, and reads their ranges), and,
// when it adds divisions, every branch shared (a schema load, which holds
// its branch alone, waits, or is waited for) and the live versions of the
// objects the new divisions name shared (a write of one waits, or is
// waited for): a change either commits before the fold reads what it
// changed, or marks the fold's rows once they are committed
// (docs/numbers.md, "Why it is exact"). label is called after those
// locks, and reads through the database what they made current.
func FoldDivisionUsage(ctx context.Context, db *DB, pool string, label DivisionLabeler) error {
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
		if _, err := tx.ExecContext(ctx, `SELECT 1 FROM number_pools WHERE id = $1 FOR SHARE`, pool); err != nil {
			return err
		}
		var counted []struct {
			Division json.RawMessage `db:"division"`
			Added    bool            `db:"added"`
		}
		if err := tx.SelectContext(ctx, &counted, foldDivisionUsageSQL, pool); err != nil {
			return err
		}
		kept, added := make([]json.RawMessage, len(counted)), []json.RawMessage(nil)
		for i, c := range counted {
			kept[i] = c.Division
			if c.Added {
				added = append(added, c.Division)
			}
		}
		if len(added) > 0 {
			if err := holdLabelSources(ctx, tx, added); err != nil {
				return err
			}
		}
		if len(kept) > 0 {
			labels, err := label(ctx, kept)
			if err != nil {
				return err
			}
			type labelled struct {
				Division json.RawMessage `json:"division"`
				Labels   []string        `json:"labels"`
				SortKeys []string        `json:"sort_keys"`
				Search   string          `json:"search"`
			}
			rows := make([]labelled, len(kept))
			for i, d := range kept {
				rows[i] = labelled{Division: d, Labels: []string{}, SortKeys: []string{}}
				if i < len(labels) {
					for _, l := range labels[i] {
						rows[i].Labels = append(rows[i].Labels, l)
						rows[i].SortKeys = append(rows[i].SortKeys, sortKey(l))
					}
				}
				rows[i].Search = searchText(d, rows[i].Labels)
			}
			doc, err := json.Marshal(rows)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE number_division_usage u SET labels = ARRAY(SELECT jsonb_array_elements_text(e->'labels')),
					sort_keys = ARRAY(SELECT jsonb_array_elements_text(e->'sort_keys')), search = e->>'search'
				FROM jsonb_array_elements($2::jsonb) e WHERE u.pool_id = $1 AND u.division = e->'division'`, pool, string(doc)); err != nil {
				return err
			}
		}
		if len(kept) >= analyzeAfter {
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

// holdLabelSources holds shared, until tx ends, what the labels of the
// divisions depend on: every branch (its schema) and the live versions,
// on any branch, of the objects the divisions name (their peers; a value
// that merely looks like an object's id locks that object, harmlessly).
func holdLabelSources(ctx context.Context, tx *Tx, divisions []json.RawMessage) error {
	if err := ShareAllBranches(ctx, tx); err != nil {
		return err
	}
	var ids []string
	for _, d := range divisions {
		var values []json.RawMessage
		_ = json.Unmarshal(d, &values)
		for _, v := range values {
			var id string
			if json.Unmarshal(v, &id) == nil && objectID.MatchString(id) && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	_, err := tx.ExecContext(ctx, `SELECT 1 FROM object_versions WHERE object_id = ANY($1::uuid[]) AND to_seq IS NULL
		ORDER BY object_id, branch_id FOR SHARE`, textArray(ids))
	return err
}

// objectID matches an object's id as objects hold it (a peer's id).
var objectID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// divisionTotalSQL is how many divisions of pool $1 number_division_usage
// holds.
const divisionTotalSQL = `coalesce((SELECT divisions FROM number_division_totals WHERE pool_id = $1), 0)`

// analyzeAfter is how many divisions one fold keeps before it gathers
// the statistics of number_division_usage.
const analyzeAfter = 1000

// foldDivisionUsageSQL deletes the marks of pool $1 and recounts each
// division they name, as shownSQL shows it: a division that shows no
// number any more loses its row. It returns the divisions it kept, to be
// labelled, and whether each is new.
const foldDivisionUsageSQL = `WITH spans AS (` + spansSQL + `), marks AS (
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
					AND ` + poolsNumberSQL + `
			) n
		) c
	), kept AS (
		INSERT INTO number_division_usage (pool_id, division, held, used)
		SELECT $1, division, held, used FROM counted WHERE held > 0
		ON CONFLICT (pool_id, division) DO UPDATE SET held = EXCLUDED.held, used = EXCLUDED.used
		RETURNING division, xmax = 0 AS added
	), dropped AS (
		DELETE FROM number_division_usage u USING counted c
		WHERE u.pool_id = $1 AND u.division = c.division AND c.held = 0
		RETURNING 1
	), counts AS (
		SELECT (SELECT count(*) FROM counted) AS recounted,
			(SELECT count(*) FILTER (WHERE added) FROM kept) - (SELECT count(*) FROM dropped) AS change
	), totals AS (
		-- The row proposed must pass the CHECK even when it conflicts: a
		-- fold that drops more divisions than it adds changes the row
		-- there is (a pool without one has no division to drop).
		INSERT INTO number_division_totals (pool_id, divisions) SELECT $1, greatest(change, 0) FROM counts
		ON CONFLICT (pool_id) DO UPDATE SET divisions = number_division_totals.divisions + (SELECT change FROM counts)
	)
	SELECT k.division, k.added FROM kept k, counts WHERE counts.recounted >= 0`

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
