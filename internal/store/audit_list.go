package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/candidates"
)

// AuditFilter narrows a listing of the audit log.
type AuditFilter struct {
	// Since keeps the entries recorded at or after it, Until those
	// recorded before it; zero keeps all.
	Since, Until time.Time
	// Namespace keeps the entries of one namespace ("acme/prod"), or of
	// the namespaces a pattern "p/*" matches; empty keeps every namespace,
	// the cluster scope too.
	Namespace string
	// Actor, Action and Kind keep the entries of that actor, action and
	// kind of object; empty keeps all.
	Actor, Action, Kind string
	// Object, when set, keeps the history of one object (see
	// AuditHistoryOf): its own entries and those of what it holds.
	Object *audit.Ref
	// Before keeps the entries of an id below it: the ID of the last entry
	// of the previous page. 0 starts from the newest.
	Before int64
	// Limit is how many entries at most; 0 for all.
	Limit int
}

const auditColumns = `id, at, actor, action, namespace, object_kind, object_name, before, after, COALESCE(branch, '') AS branch`

// AuditEntries returns the entries f keeps, newest first. A filter no
// stored entry can match (text that is not UTF-8 or holds a NUL) matches
// nothing. The history of an object is read down the indexes of
// migration 0021, each part of it newest first, and a filter by actor,
// action or kind down audit_log_actor, audit_log_action and
// audit_log_kind, so that a page takes a few index probes whatever the
// size of the log (BenchmarkAuditHistory).
func AuditEntries(ctx context.Context, q sqlx.QueryerContext, f AuditFilter) ([]AuditEntry, error) {
	texts := []string{f.Namespace, f.Actor, f.Action, f.Kind}
	if f.Object != nil {
		texts = append(texts, f.Object.Kind, f.Object.Namespace, f.Object.Name)
	}
	for _, s := range texts {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return nil, nil
		}
	}
	var w auditWhere
	w.filter(f)
	var query string
	if f.Object == nil {
		query = `SELECT ` + auditColumns + ` FROM audit_log WHERE ` + w.common + ` ORDER BY id DESC` + w.limit(f.Limit)
	} else {
		arms, ok := w.history(*f.Object, f.Limit)
		if !ok {
			return nil, nil
		}
		query = w.with + `SELECT * FROM (` + strings.Join(arms, "\n\tUNION ALL ") + `) e ORDER BY id DESC` + w.limit(f.Limit)
	}
	var out []AuditEntry
	if err := sqlx.SelectContext(ctx, q, &out, query, w.args...); err != nil {
		return nil, fmt.Errorf("store: unable to list the audit log: %w", classify(err))
	}
	return out, nil
}

// auditWhere builds the statement of AuditEntries: its conditions, its
// parameters, and the common statement of the history's parts.
type auditWhere struct {
	args   []any
	common string
	with   string
}

// arg adds a parameter and returns its placeholder.
func (w *auditWhere) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

// limit is the LIMIT clause of n, none for 0.
func (w *auditWhere) limit(n int) string {
	if n <= 0 {
		return ""
	}
	return " LIMIT " + w.arg(n)
}

// filter sets the conditions of f but its object, which every part of a
// history shares.
func (w *auditWhere) filter(f AuditFilter) {
	conds := []string{"true"}
	if !f.Since.IsZero() {
		conds = append(conds, "at >= "+w.arg(f.Since))
	}
	if !f.Until.IsZero() {
		conds = append(conds, "at < "+w.arg(f.Until))
	}
	if prefix, ok := strings.CutSuffix(f.Namespace, "/*"); ok {
		conds = append(conds, "(namespace = "+w.arg(f.Namespace)+" OR namespace LIKE "+w.arg(likeEscape(prefix)+"/_%")+")")
	} else if f.Namespace != "" {
		conds = append(conds, "namespace = "+w.arg(f.Namespace))
	}
	for _, c := range []struct{ column, value string }{{"actor", f.Actor}, {"action", f.Action}, {"object_kind", f.Kind}} {
		if c.value != "" {
			conds = append(conds, c.column+" = "+w.arg(c.value))
		}
	}
	if f.Kind != "" && f.Kind != audit.KindAllocation && f.Kind != audit.KindNumberPool {
		// Written out, so that the planner sees that the index audit_log_kind
		// holds the kind's entries.
		conds = append(conds, ownEntries)
	}
	if f.Before > 0 {
		conds = append(conds, "id < "+w.arg(f.Before))
	}
	w.common = strings.Join(conds, " AND ")
}

// The conditions of the audit log's partial indexes, written as they are
// in their migrations so that the planner sees that each part may use its
// index.
const (
	ownEntries        = `object_kind <> 'IPAllocation' AND object_kind <> 'CoreNumberPool'`
	allocationEntries = `object_kind = 'IPAllocation'`
	numberEntries     = `object_kind = 'CoreNumberPool'`
	poolOf            = `(coalesce(after, before) ->> 'pool')`
	subnetOf          = `(coalesce(after, before) ->> 'subnet')`
	numberPoolOf      = `(coalesce(coalesce(after, before) ->> 'pool_id', coalesce(after, before) ->> 'id'))`
	onBranch          = `branch IS NOT NULL AND branch <> 'main'`
)

// mainBranch is the default branch, whose changes audit_log_branch leaves
// out: they are most of the log's changes of objects and numbers.
const mainBranch = "main"

// history returns the parts of the history of the object r, each a
// statement of entries newest first, at most limit (0: all):
//   - a pool (KindPool): its own entries, and the claims and releases of
//     its addresses, subnet by subnet;
//   - a VPC: its own, its subnets', and those of its private pool's
//     addresses;
//   - a subnet ("<vpc>/<subnet>"): its own, and those of its addresses;
//   - a number pool (its id): its own and its numbers';
//   - a branch: its own (its creation, merges, rebases, deletion), its
//     schema's loads, and the changes of objects and numbers made on it
//     (but on main, whose changes are the objects' own histories);
//   - an object of a kind (its id), or any other kind: its own.
//
// false when r names nothing that can have entries.
func (w *auditWhere) history(r audit.Ref, limit int) ([]string, bool) {
	own := func(kind, name string) string {
		return w.part(ownEntries+` AND object_kind = `+w.arg(kind)+` AND namespace = `+w.arg(r.Namespace)+
			` AND (object_name COLLATE "C") = `+w.arg(name), limit)
	}
	switch r.Kind {
	case audit.KindPool:
		return append([]string{own(audit.KindPool, r.Name)}, w.addresses(r.Namespace, r.Name, limit)...), true
	case audit.KindVPC:
		subnets := w.part(ownEntries+` AND object_kind = 'Subnet' AND namespace = `+w.arg(r.Namespace)+
			` AND (object_name COLLATE "C") > `+w.arg(r.Name+"/")+` AND (object_name COLLATE "C") < `+w.arg(r.Name+"0"), limit)
		return append([]string{own(audit.KindVPC, r.Name), subnets}, w.addresses(r.Namespace, candidates.PrivatePoolName(r.Name), limit)...), true
	case audit.KindSubnet:
		vpc, name, ok := strings.Cut(r.Name, "/")
		if !ok {
			return nil, false
		}
		addresses := w.part(allocationEntries+` AND namespace = `+w.arg(r.Namespace)+` AND `+poolOf+` = `+w.arg(candidates.PrivatePoolName(vpc))+
			` AND `+subnetOf+` = `+w.arg(name), limit)
		return []string{own(audit.KindSubnet, r.Name), addresses}, true
	case audit.KindNumberPool:
		return []string{w.part(numberEntries+` AND `+numberPoolOf+` = `+w.arg(r.Name), limit)}, true
	case audit.KindBranch:
		parts := []string{own(audit.KindBranch, r.Name), own(audit.KindSchema, r.Name)}
		if r.Name != mainBranch {
			parts = append(parts, w.part(onBranch+` AND branch = `+w.arg(r.Name)+
				` AND object_kind <> 'Branch' AND object_kind <> 'Schema'`, limit))
		}
		return parts, true
	case audit.KindAllocation, "":
		return nil, false
	}
	return []string{own(r.Kind, r.Name)}, true
}

// part is a statement of the entries cond keeps and the common conditions
// keep, newest first, at most limit.
func (w *auditWhere) part(cond string, limit int) string {
	return `(SELECT ` + auditColumns + ` FROM audit_log WHERE ` + cond + ` AND ` + w.common + ` ORDER BY id DESC` + w.limit(limit) + `)`
}

// addresses returns the parts of the entries of the addresses of the pool
// of namespace: one for each subnet its entries name, found by skipping
// down the index from one to the next (a few probes, not a read of the
// pool's entries), and one for those that name none.
func (w *auditWhere) addresses(namespace, pool string, limit int) []string {
	ns, p := w.arg(namespace), w.arg(pool)
	of := allocationEntries + ` AND namespace = ` + ns + ` AND ` + poolOf + ` = ` + p
	w.with = `WITH RECURSIVE subnets (subnet) AS (
			SELECT min(` + subnetOf + `) FROM audit_log WHERE ` + of + `
			UNION ALL
			SELECT (SELECT min(` + subnetOf + `) FROM audit_log WHERE ` + of + ` AND ` + subnetOf + ` > s.subnet)
			FROM subnets s WHERE s.subnet IS NOT NULL
		) `
	bySubnet := `(SELECT e.* FROM subnets s CROSS JOIN LATERAL ` + w.part(of+` AND `+subnetOf+` = s.subnet`, limit) + ` e
		WHERE s.subnet IS NOT NULL)`
	return []string{bySubnet, w.part(of+` AND `+subnetOf+` IS NULL`, limit)}
}
