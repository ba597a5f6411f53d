package web

import (
	"net/http"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/views"
)

// objectsPerPage is the length of a page of the objects table.
const objectsPerPage = 50

// objectList answers GET /objects/{kind}?branch=&q=&offset=: a page of the
// kind's objects on the branch, one column per attribute and relationship
// of cardinality one; q keeps the objects whose label or a value holds it.
func (s *Server) objectList(w http.ResponseWriter, r *http.Request) {
	kp, ok := s.kindPageOf(w, r, func(kind string) string { return kind + " objects" })
	if !ok {
		return
	}
	actor, _ := actorFrom(r.Context())
	kind := kp.kind.FullName()
	q := r.URL.Query()
	p := views.ObjectListPageProps{Shell: kp.shell, Branch: kp.branch, Kind: kind, KindLabel: views.KindLabel(kp.kind), Generic: kp.kind.Generic, Query: strings.TrimSpace(q.Get("q"))}
	if p.Offset, _ = strconv.Atoi(q.Get("offset")); p.Offset < 0 {
		p.Offset = 0
	}
	attrs := kp.schema.Attributes(kind)
	var rels []schema.Relationship
	for _, a := range attrs {
		p.Columns = append(p.Columns, views.ObjectColumn{Name: a.Name, Label: views.AttributeLabel(a)})
	}
	for _, rel := range kp.schema.Relationships(kind) {
		if rel.Cardinality == schema.One {
			rels = append(rels, rel)
			p.Columns = append(p.Columns, views.ObjectColumn{Name: rel.Name, Label: views.RelationshipLabel(rel), Relationship: true})
		}
	}
	objs, count, err := s.searchObjects(r, actor, kp.branch, kind, attrs, p.Query, p.Offset)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p.Count = count
	labels, err := s.peerLabels(r, actor, kp.branch, rels, objs)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	for _, o := range objs {
		row := views.ObjectRow{ID: o.ID, Label: o.DisplayLabel, Href: views.ObjectHref(o.Kind, o.ID, kp.branch)}
		for _, a := range attrs {
			row.Cells = append(row.Cells, views.ObjectCell{Text: formatValue(o.Attributes[a.Name])})
		}
		for _, rel := range rels {
			var c views.ObjectCell
			if peers := o.Relationships[rel.Name]; len(peers) > 0 {
				c.Text = labels[peers[0]].DisplayLabel
				c.Href = views.ObjectHref(labels[peers[0]].Kind, peers[0], kp.branch)
			}
			row.Cells = append(row.Cells, c)
		}
		p.Rows = append(p.Rows, row)
	}
	if p.Offset > 0 {
		p.PrevHref = views.ObjectsHref(kind, p.Query, max(p.Offset-objectsPerPage, 0), kp.branch)
	}
	if p.Offset+objectsPerPage < p.Count {
		p.NextHref = views.ObjectsHref(kind, p.Query, p.Offset+objectsPerPage, kp.branch)
	}
	var f views.Flash
	if s.popFlash(r.Context(), views.ObjectsHref(kind, "", 0, views.MainBranch), &f) {
		p.Flash = &f
	}
	s.renderPage(w, r, views.ObjectListPage(p), "objects")
}

// searchObjects returns the page of the kind's objects from offset on that
// query keeps (every object when ""), and how many it keeps.
func (s *Server) searchObjects(r *http.Request, actor auth.Actor, branchName, kind string, attrs []schema.Attribute, query string, offset int) ([]branch.Object, int, error) {
	if query == "" {
		page, err := s.branches.Objects(r.Context(), actor, branchName, kind, branch.Filter{}, objectsPerPage, offset)
		return page.Objects, page.Count, err
	}
	needle := strings.ToLower(query)
	var kept []branch.Object
	for from := 0; ; from += branch.MaxPage {
		page, err := s.branches.Objects(r.Context(), actor, branchName, kind, branch.Filter{}, branch.MaxPage, from)
		if err != nil {
			return nil, 0, err
		}
		for _, o := range page.Objects {
			if matches(o, attrs, needle) {
				kept = append(kept, o)
			}
		}
		if from+branch.MaxPage >= page.Count {
			break
		}
	}
	if offset >= len(kept) {
		return nil, len(kept), nil
	}
	return kept[offset:min(offset+objectsPerPage, len(kept))], len(kept), nil
}

// matches reports whether the object's label or a value holds needle, in
// lower case.
func matches(o branch.Object, attrs []schema.Attribute, needle string) bool {
	if strings.Contains(strings.ToLower(o.DisplayLabel), needle) {
		return true
	}
	for _, a := range attrs {
		if strings.Contains(strings.ToLower(formatValue(o.Attributes[a.Name])), needle) {
			return true
		}
	}
	return false
}

// peerLabels returns the peers of the objects' relationships by id.
func (s *Server) peerLabels(r *http.Request, actor auth.Actor, branchName string, rels []schema.Relationship, objs []branch.Object) (map[string]branch.Object, error) {
	out := map[string]branch.Object{}
	for _, rel := range rels {
		var ids []string
		for _, o := range objs {
			ids = append(ids, o.Relationships[rel.Name]...)
		}
		if len(ids) == 0 {
			continue
		}
		page, err := s.branches.Objects(r.Context(), actor, branchName, rel.Peer, branch.Filter{IDs: ids}, branch.MaxPage, 0)
		if err != nil {
			return nil, err
		}
		for _, peer := range page.Objects {
			out[peer.ID] = peer
		}
	}
	return out, nil
}
