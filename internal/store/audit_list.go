package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
)

// AuditFilter narrows a listing of the audit log.
type AuditFilter struct {
	// Since keeps the entries recorded at or after it; zero keeps all.
	Since time.Time
	// Namespace keeps the entries of one namespace ("acme/prod"), or of
	// the namespaces a pattern "p/*" matches; empty keeps every namespace,
	// the cluster scope too.
	Namespace string
	// Before keeps the entries of an id below it: the ID of the last entry
	// of the previous page. 0 starts from the newest.
	Before int64
	// Limit is how many entries at most; 0 for all.
	Limit int
}

const auditColumns = `id, at, actor, action, namespace, object_kind, object_name, before, after`

// AuditEntries returns the entries f keeps, newest first. A namespace no
// stored entry can have (not UTF-8, or holding a NUL) matches nothing.
func AuditEntries(ctx context.Context, q sqlx.QueryerContext, f AuditFilter) ([]AuditEntry, error) {
	if !utf8.ValidString(f.Namespace) || strings.ContainsRune(f.Namespace, 0) {
		return nil, nil
	}
	var since, limit any
	if !f.Since.IsZero() {
		since = f.Since
	}
	if f.Limit > 0 {
		limit = f.Limit
	}
	var under string
	if prefix, ok := strings.CutSuffix(f.Namespace, "/*"); ok {
		under = likeEscape(prefix) + "/_%"
	}
	var out []AuditEntry
	err := sqlx.SelectContext(ctx, q, &out, `SELECT `+auditColumns+` FROM audit_log
		WHERE ($1::timestamptz IS NULL OR at >= $1)
			AND ($2 = '' OR namespace = $2 OR $3 <> '' AND namespace LIKE $3)
			AND ($4 = 0 OR id < $4)
		ORDER BY id DESC LIMIT $5`, since, f.Namespace, under, f.Before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the audit log: %w", classify(err))
	}
	return out, nil
}

// Object names what the entry changed: "namespace/name", or the name
// alone in the cluster scope.
func (e AuditEntry) Object() string {
	if e.Namespace == "" {
		return e.ObjectName
	}
	return e.Namespace + "/" + e.ObjectName
}

// Change sums up before → after on one line: "+ k=v …" for what was
// made, "- k=v …" for what is gone, "k: old→new; …" for what changed.
// Long lists are cut, strings with spaces or control characters quoted.
func (e AuditEntry) Change() string {
	before, after := decodeJSON(e.Before), decodeJSON(e.After)
	switch {
	case before == nil && after == nil:
		return ""
	case before == nil:
		return "+ " + summary(after)
	case after == nil:
		return "- " + summary(before)
	}
	b, bok := before.(map[string]any)
	a, aok := after.(map[string]any)
	if !bok || !aok {
		return summary(before) + " → " + summary(after)
	}
	var changes []string
	for _, k := range sortedKeys(a, b) {
		if old, now := compact(b[k]), compact(a[k]); old != now {
			changes = append(changes, k+": "+old+"→"+now)
		}
	}
	if len(changes) == 0 {
		return "no field changed"
	}
	return strings.Join(changes, "; ")
}

// decodeJSON reads a document with its numbers as written; nil for none.
func decodeJSON(raw RawJSON) any {
	if raw == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	return v
}

// summary writes an object as "k=v k=v", leaving out empty values, and
// anything else as compact does.
func summary(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return compact(v)
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		switch v := m[k]; v {
		case nil, "":
		default:
			if s := compact(v); s != "[]" && s != "{}" {
				parts = append(parts, k+"="+s)
			}
		}
	}
	return strings.Join(parts, " ")
}

// maxListed is how many items of a list a summary shows.
const maxListed = 3

// compact writes a JSON value in few characters: null as "", objects as
// {k=v …}, lists as [a,b,c,+N].
func compact(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		if x == "" || strings.ContainsFunc(x, func(r rune) bool {
			return unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(`"=;,{}[]`, r)
		}) {
			return strconv.Quote(x)
		}
		return x
	case map[string]any:
		return "{" + summary(x) + "}"
	case []any:
		items := make([]string, 0, maxListed+1)
		for i, item := range x {
			if i == maxListed {
				items = append(items, fmt.Sprintf("+%d", len(x)-maxListed))
				break
			}
			items = append(items, compact(item))
		}
		return "[" + strings.Join(items, ",") + "]"
	default:
		return fmt.Sprint(x)
	}
}

// sortedKeys returns the keys of the maps, each once, in order.
func sortedKeys(ms ...map[string]any) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
