package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// An ObjectSearch is what SearchObjects looks for among the live objects
// a view shows: those holding one of Equal or of the id ID (found whole),
// and those with a value of one of Attributes that holds Contains (found
// by a part).
type ObjectSearch struct {
	// Kinds are the stable ids of the node kinds searched.
	Kinds []string
	// Equal keeps the objects whose data holds one of these documents at
	// least (jsonb's @>, through object_versions_data): an attribute's
	// whole value.
	Equal []map[string]json.RawMessage
	// ID keeps the object of this id, a UUID, when not "".
	ID string
	// Contains, when not "", keeps the objects whose string value of one of
	// Attributes (their stable ids) holds it, case ignored: found through
	// the trigram index of object_versions.search (migration 0024), which
	// needs a run of three letters or digits in Contains to be of use.
	Contains   string
	Attributes []string
	// Limit bounds each of the two parts (whole, by a part).
	Limit int
}

// A FoundObject is an object a search found: Whole when it holds one of
// the documents or the id of the search, else by a part of a value.
type FoundObject struct {
	ObjectRow
	Whole bool
}

type foundScan struct {
	objectScan
	Whole bool `db:"whole"`
}

func (s foundScan) row() (FoundObject, error) {
	r, err := s.objectScan.row()
	return FoundObject{ObjectRow: r, Whole: s.Whole}, err
}

// SearchObjects returns the live objects v shows that s keeps: those found
// whole first, then those found by a part, at most s.Limit of each, an
// object once (as found whole when both). Deleted objects are left out.
// One statement.
func SearchObjects(ctx context.Context, q sqlx.QueryerContext, v View, s ObjectSearch) ([]FoundObject, error) {
	args := []any{textArray(s.Kinds), s.Limit}
	arg := func(x any) string {
		args = append(args, x)
		return "$" + strconv.Itoa(len(args))
	}
	visible := `o.branch_id = 1 AND o.to_seq IS NULL`
	if !v.OnMain() {
		b, p := arg(v.Branch), arg(v.Point)
		visible = `(o.branch_id = ` + b + ` AND o.to_seq IS NULL
			OR o.branch_id = 1 AND o.from_seq <= ` + p + ` AND (o.to_seq IS NULL OR o.to_seq > ` + p + `)
				AND NOT EXISTS (SELECT 1 FROM object_versions s WHERE s.object_id = o.object_id AND s.branch_id = ` + b + ` AND s.to_seq IS NULL))`
	}
	visible += ` AND NOT o.deleted AND o.kind = ANY($1)`
	var parts []string
	var whole []string
	if len(s.Equal) > 0 {
		docs, err := encodeDocs(s.Equal)
		if err != nil {
			return nil, err
		}
		whole = append(whole, `o.data @> ANY(`+arg(docs)+`::jsonb[])`)
	}
	if s.ID != "" {
		whole = append(whole, `o.object_id = `+arg(s.ID)+`::uuid`)
	}
	if len(whole) > 0 {
		parts = append(parts, `(SELECT true AS whole, `+objectColumnsOf("o")+` FROM object_versions o
			WHERE `+visible+` AND (`+strings.Join(whole, " OR ")+`) LIMIT $2)`)
	}
	if s.Contains != "" && len(s.Attributes) > 0 {
		pattern := `'%' || lower(` + arg(likeEscape(s.Contains)) + `) || '%'`
		parts = append(parts, `(SELECT false, `+objectColumnsOf("o")+` FROM object_versions o
			WHERE `+visible+` AND o.search LIKE `+pattern+`
				AND EXISTS (SELECT 1 FROM jsonb_each(o.data) e WHERE e.key = ANY(`+arg(textArray(s.Attributes))+`)
					AND jsonb_typeof(e.value) = 'string' AND lower(e.value #>> '{}') LIKE `+pattern+`)
			LIMIT $2)`)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	rows, err := selectRows[foundScan](ctx, q, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search the objects: %w", classify(err))
	}
	// The parts come in order, but an Append's order is no promise.
	slices.SortStableFunc(rows, func(a, b FoundObject) int {
		switch {
		case a.Whole == b.Whole:
			return 0
		case a.Whole:
			return -1
		}
		return 1
	})
	seen := make(map[string]bool, len(rows))
	out := rows[:0]
	for _, r := range rows {
		if !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// objectColumnsOf is objectColumns of the table named t.
func objectColumnsOf(t string) string {
	cols := strings.Split(objectColumns, ", ")
	for i, c := range cols {
		cols[i] = t + "." + c
	}
	return strings.Join(cols, ", ")
}
