package ipam

import (
	"context"
	"encoding/json"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// An AuditEntry is one change of the audit log: who, when, what, before
// and after, which audit.Describe tells in a sentence.
type AuditEntry = audit.Entry

// An AuditFilter narrows a reading of the audit log.
type AuditFilter struct {
	// Since keeps the entries recorded at or after it, Until those
	// recorded before it; zero keeps all.
	Since, Until time.Time
	// Namespace keeps the entries of one namespace ("acme/prod"), or of
	// the namespaces a pattern "p/*" matches; empty keeps every namespace,
	// the cluster scope too.
	Namespace string
	// Actor, Action and Kind keep the entries of that actor, action
	// (audit.Create…) and kind of object (audit.KindVPC…, or a kind of
	// objects); empty keeps all.
	Actor, Action, Kind string
	// Object, when set, keeps the history of that object (History).
	Object *audit.Ref
	// Before keeps the entries of an id below it: the ID of the last entry
	// of the previous page. 0 starts from the newest.
	Before int64
	// Limit is how many entries at most; 0 for all.
	Limit int
}

// AuditLog returns the entries of the audit log that f keeps, newest
// first. Only operators read it: it holds every namespace's changes and
// the users'; anyone else is refused with refusal.ErrForbidden.
func (s *Service) AuditLog(ctx context.Context, actor auth.Actor, f AuditFilter) ([]AuditEntry, error) {
	if !actor.IsOperator() {
		return nil, forbidden("%s may not read the audit log", actor.Name)
	}
	return s.auditLog(ctx, f)
}

// auditLog reads the entries f keeps.
func (s *Service) auditLog(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	rows, err := store.AuditEntries(ctx, s.db, store.AuditFilter{Since: f.Since, Until: f.Until, Namespace: f.Namespace,
		Actor: f.Actor, Action: f.Action, Kind: f.Kind, Object: f.Object, Before: f.Before, Limit: f.Limit})
	if err != nil {
		return nil, err
	}
	return auditEntries(rows), nil
}

// History returns the last limit changes of the object r, newest first:
// its own and those of what it holds (a pool's or a subnet's addresses, a
// VPC's subnets and addresses, a number pool's numbers; see
// store.AuditFilter.Object). Operators read every object's; a tenant the
// history of a VPC, a subnet or a private pool of a namespace its patterns
// match, and nothing else (refusal.ErrForbidden), as the dashboard shows it the
// changes of its namespaces.
func (s *Service) History(ctx context.Context, actor auth.Actor, r audit.Ref, limit int) ([]AuditEntry, error) {
	if !actor.IsOperator() {
		switch r.Kind {
		case audit.KindVPC, audit.KindSubnet, audit.KindPool:
			if r.Namespace == "" || !actor.CanAccess(r.Namespace) {
				return nil, forbidden("%s may not read the history of %s %s", actor.Name, r.Kind, r.Name)
			}
		default:
			return nil, forbidden("%s may not read the history of %s %s", actor.Name, r.Kind, r.Name)
		}
	}
	return s.auditLog(ctx, AuditFilter{Object: &r, Limit: limit})
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
