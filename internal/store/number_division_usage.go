package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
)

// DivisionUsage is a division of a pool and how many different numbers
// shown in it lie in the ranges given.
type DivisionUsage struct {
	Division json.RawMessage // canonical
	Used     int64
}

// DivisionsByUsage returns a page of the divisions of the pool where a
// branch shows an object holding a number (as NumberDivisions), each with
// the count of the different numbers shown in it that lie in ranges, most
// used first (least used first when leastFirst), ties by division, limit
// at most from offset on; and how many divisions there are. The database
// counts and orders them: only the page's rows are read.
func DivisionsByUsage(ctx context.Context, q sqlx.QueryerContext, pool string, ranges []NumberRange, leastFirst bool, limit, offset int) ([]DivisionUsage, int, error) {
	spans := make([]string, len(ranges))
	for i, r := range ranges {
		spans[i] = fmt.Sprintf("[%d,%d]", r.Start, r.End)
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
	// Each (division, number) once, then counted per division: both
	// hashed, where count(DISTINCT …) would sort every row by division.
	err := sqlx.SelectContext(ctx, q, &scans, `WITH `+shownSQL+`, per AS (
			SELECT division, count(*) FILTER (WHERE in_ranges) AS used
			FROM (SELECT DISTINCT division, number, $2::int8multirange @> number AS in_ranges FROM shown) AS x
			GROUP BY division
		)
		SELECT division, used, count(*) OVER () AS total FROM per ORDER BY `+order+` LIMIT $3 OFFSET $4`,
		pool, "{"+strings.Join(spans, ",")+"}", limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("store: unable to read the divisions of pool %s: %w", pool, classify(err))
	}
	out := make([]DivisionUsage, len(scans))
	total := 0
	for i, s := range scans {
		d, err := Canonical(s.Division)
		if err != nil {
			return nil, 0, fmt.Errorf("store: a division of pool %s cannot be read: %w", pool, err)
		}
		out[i], total = DivisionUsage{Division: d, Used: s.Used}, s.Total
	}
	if len(scans) == 0 && offset > 0 {
		// Past the last page: count them apart.
		if err := sqlx.GetContext(ctx, q, &total, `WITH `+shownSQL+` SELECT count(DISTINCT division) FROM shown`, pool); err != nil {
			return nil, 0, fmt.Errorf("store: unable to count the divisions of pool %s: %w", pool, classify(err))
		}
	}
	return out, total, nil
}
