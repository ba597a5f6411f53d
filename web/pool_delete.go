package web

import (
	"net/http"
	"net/url"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// poolDeleteProps is the confirmation of the delete of the public pool p,
// saying what d says of it.
func (s *Server) poolDeleteProps(r *http.Request, p ipam.Pool, d ipam.Deletion) views.ConfirmProps {
	c := views.ConfirmProps{Shell: s.shell(r, "Delete public pool "+p.Name+"?"), Action: views.PoolDeleteHref(p), Fields: url.Values{},
		Verb: "Delete", Object: "public pool " + p.Name, CancelHref: views.PoolHref(p), TestID: "confirm-delete-pool"}
	where := p.CIDR.String()
	if p.Zone != "" {
		where += " in zone " + p.Zone
	}
	c.Consequences = []string{"Deleting public pool " + p.Name + " (" + where + ") removes it for good: floating IPs and routers' uplinks are no longer claimed from it."}
	if d.Refusal != nil {
		c.Refusal = refusal.Classify(d.Refusal).Message
	}
	return c
}

// poolDeleteForm answers GET /pools/<name>/delete: the page that confirms
// the delete of the public pool, or says the refusal it meets while it
// holds addresses (operators).
func (s *Server) poolDeleteForm(w http.ResponseWriter, r *http.Request) {
	p, ok := s.publicPoolOf(w, r)
	if !ok {
		return
	}
	actor, _ := actorFrom(r.Context())
	d, err := s.ipam.PublicPoolDeletion(r.Context(), actor, p.Name)
	if err != nil {
		s.confirmFailed(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, views.ConfirmPage(s.poolDeleteProps(r, p, d)))
}

// poolDelete answers POST /pools/<name>/delete: deletes the public pool
// (deletePublicPool) and leads to the pools, which say so; refused, the
// confirmation says why.
func (s *Server) poolDelete(w http.ResponseWriter, r *http.Request) {
	p, ok := s.publicPoolOf(w, r)
	if !ok || !readForm(w, r) {
		return
	}
	actor, _ := actorFrom(r.Context())
	if err := s.ipam.DeletePublicPool(r.Context(), actor, p.Name); err != nil {
		s.confirmRefused(w, r, err, s.poolDeleteProps(r, p, ipam.Deletion{}))
		return
	}
	s.done(w, r, views.PoolsPath, views.PoolsPath, "Deleted public pool "+p.Name+" ("+p.CIDR.String()+").")
}
