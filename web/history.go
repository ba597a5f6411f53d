package web

import (
	"context"
	"errors"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// historyLength is how many changes an object's page lists.
const historyLength = 10

// history returns the history of the object r as its page shows it, named
// what ("pool public-1"): its last changes, linked for whoever reads
// them, and for operators the audit log filtered to it. Whoever may not
// read it (ipam.Service.History) gets no panel.
func (s *Server) history(ctx context.Context, r audit.Ref, what string) (views.HistoryProps, error) {
	actor, _ := actorFrom(ctx)
	entries, err := s.ipam.History(ctx, actor, r, historyLength)
	if errors.Is(err, refusal.ErrForbidden) {
		return views.HistoryProps{}, nil
	}
	if err != nil {
		return views.HistoryProps{}, err
	}
	p := views.HistoryProps{What: what, Shown: true}
	if p.Rows, err = s.changeRows(ctx, actor, entries); err != nil {
		return views.HistoryProps{}, err
	}
	if actor.IsOperator() {
		p.AuditHref = views.AuditHistoryHref(r)
	}
	return p, nil
}
