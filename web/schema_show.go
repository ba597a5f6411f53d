package web

import (
	"net/http"

	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/views"
)

// schemaShow answers GET /schema?branch=: the branch's schema of kinds, each
// with its attributes and relationships, and the form that loads a schema
// file on it (operators; tenants get the 404 page).
func (s *Server) schemaShow(w http.ResponseWriter, r *http.Request) {
	p := views.SchemaPageProps{}
	var f views.Flash
	if s.popFlash(r.Context(), views.BranchHref(views.SchemaPath, branchInUse(r)), &f) {
		p.Flash = &f
	}
	s.renderSchema(w, r, http.StatusOK, p)
}

// renderSchema renders the schema page of the branch in use, p given its
// kinds and frame.
func (s *Server) renderSchema(w http.ResponseWriter, r *http.Request, status int, p views.SchemaPageProps) {
	sh, name, err := s.branchShell(r, "Schema")
	if err != nil {
		s.failed(w, r, err)
		return
	}
	sc, err := s.branches.Schema(r.Context(), name)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p.Shell, p.Branch, p.Kinds = sh, name, schemaKinds(sc)
	s.render(w, r, status, views.SchemaPage(p))
}

// schemaKinds are the kinds of sc with every element their objects have.
func schemaKinds(sc schema.Schema) []views.SchemaKind {
	kinds := sc.Kinds()
	out := make([]views.SchemaKind, len(kinds))
	for i, k := range kinds {
		out[i] = views.SchemaKind{Kind: k, AllAttributes: sc.Attributes(k.FullName()), AllRelationships: sc.Relationships(k.FullName())}
	}
	return out
}
