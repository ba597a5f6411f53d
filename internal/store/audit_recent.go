package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// RecentAuditEntries returns the newest limit entries of the namespaces
// given, newest first; of every namespace, the cluster scope too, when
// namespaces is nil. Each namespace is read down its own index (namespace,
// at), so that a quiet tenant's few entries are found as fast among a
// million of others as a busy one's.
func RecentAuditEntries(ctx context.Context, q sqlx.QueryerContext, namespaces []string, limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	var err error
	if namespaces == nil {
		err = sqlx.SelectContext(ctx, q, &out, `SELECT `+auditColumns+` FROM audit_log ORDER BY id DESC LIMIT $1`, limit)
	} else {
		err = sqlx.SelectContext(ctx, q, &out, `SELECT e.* FROM unnest($1::text[]) AS n (namespace),
			LATERAL (SELECT `+auditColumns+` FROM audit_log a WHERE a.namespace = n.namespace ORDER BY a.at DESC, a.id DESC LIMIT $2) e
			ORDER BY e.at DESC, e.id DESC LIMIT $2`, pq.StringArray(namespaces), limit)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the recent changes: %w", classify(err))
	}
	return out, nil
}

// CountAuditEntries counts the entries recorded since since in the
// namespaces given (nil: all), up to limit: a count of limit means limit
// or more.
func CountAuditEntries(ctx context.Context, q sqlx.QueryerContext, namespaces []string, since time.Time, limit int) (int, error) {
	var n int
	var err error
	if namespaces == nil {
		err = sqlx.GetContext(ctx, q, &n, `SELECT count(*) FROM (SELECT FROM audit_log WHERE at >= $1 LIMIT $2) AS c`, since, limit)
	} else {
		err = sqlx.GetContext(ctx, q, &n, `SELECT least(coalesce(sum(c.n), 0), $3) FROM unnest($1::text[]) AS ns (namespace),
			LATERAL (SELECT count(*) AS n FROM (SELECT FROM audit_log a WHERE a.namespace = ns.namespace AND a.at >= $2 LIMIT $3) AS l) c`,
			pq.StringArray(namespaces), since, limit)
	}
	if err != nil {
		return 0, fmt.Errorf("store: unable to count the changes: %w", classify(err))
	}
	return n, nil
}
