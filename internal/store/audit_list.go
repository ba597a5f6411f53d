package store

import (
	"context"
	"fmt"
	"strings"
	"time"
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

const auditColumns = `id, at, actor, action, namespace, object_kind, object_name, before, after, COALESCE(branch, '') AS branch`

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
