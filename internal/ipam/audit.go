package ipam

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

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// An AuditEntry is one change of the audit log: who, when, what, before
// and after.
type AuditEntry struct {
	ID     int64
	At     time.Time
	Actor  string
	Action string // create, delete, allocate, release, revoke…
	// Namespace, Kind and Name name the object changed; Namespace is empty
	// in the cluster scope.
	Namespace, Kind, Name string
	// Before and After are the object as JSON documents: Before is nil when
	// the object is new, After when it is gone.
	Before, After json.RawMessage
	// Branch is the branch of a change of branches, schemas and objects of
	// kinds (internal/branch); "" for the IP half, which has no branches.
	Branch string
}

// An AuditFilter narrows a reading of the audit log.
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

// AuditLog returns the entries of the audit log that f keeps, newest
// first. Only operators read it: it holds every namespace's changes and
// the users'; anyone else is refused with ErrForbidden.
func (s *Service) AuditLog(ctx context.Context, actor auth.Actor, f AuditFilter) ([]AuditEntry, error) {
	if !actor.IsOperator() {
		return nil, forbidden("%s may not read the audit log", actor.Name)
	}
	rows, err := store.AuditEntries(ctx, s.db, store.AuditFilter{Since: f.Since, Namespace: f.Namespace, Before: f.Before, Limit: f.Limit})
	if err != nil {
		return nil, err
	}
	return auditEntries(rows), nil
}

// auditEntries converts the store's entries.
func auditEntries(rows []store.AuditEntry) []AuditEntry {
	out := make([]AuditEntry, len(rows))
	for i, r := range rows {
		out[i] = AuditEntry{ID: r.ID, At: r.At, Actor: r.Actor, Action: r.Action, Namespace: r.Namespace, Kind: r.ObjectKind, Name: r.ObjectName,
			Before: json.RawMessage(r.Before), After: json.RawMessage(r.After), Branch: r.Branch}
	}
	return out
}

// Object names what the entry changed: "namespace/name", or the name
// alone in the cluster scope.
func (e AuditEntry) Object() string {
	if e.Namespace == "" {
		return e.Name
	}
	return e.Namespace + "/" + e.Name
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
func decodeJSON(raw json.RawMessage) any {
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
