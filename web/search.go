package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/search"
	"pivirt.hu/ipam/views"
)

// search answers GET /search?q=…[&first=N][&branch=B]: who holds an
// address or why nobody does, and what else the query names that the user
// may see (ipam.Service.Search), each hit linked: to operators, with the
// number pools, their numbers and the objects of kinds (numbers.Service's
// Find) on main and on the branch of the header's selector. Without q it
// says what to type; a query the domain refuses answers 422 with its
// message; an unknown branch the 404 page.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	q := r.URL.Query()
	query := q.Get("q")
	p := views.SearchPageProps{Shell: s.shell(r, "Search")}
	on := ""
	if actor.IsOperator() {
		var err error
		if p.Shell, on, err = s.branchShell(r, "Search"); err != nil {
			s.failed(w, r, err)
			return
		}
		p.Shell.Branch.Query, p.Branch = query, on
	}
	p.Shell.Search = query
	if strings.TrimSpace(query) == "" {
		s.render(w, r, http.StatusOK, views.SearchPage(p))
		return
	}
	first := 0
	if f := q.Get("first"); f != "" {
		n, err := strconv.Atoi(f)
		if err != nil {
			p.Error = "first " + strconv.Quote(f) + " is not a number: give how many hits to show, 1 to " + views.Figure(ipam.MaxSearchHits)
			s.render(w, r, http.StatusUnprocessableEntity, views.SearchPage(p))
			return
		}
		first = n
	}
	res, err := s.ipam.Search(r.Context(), actor, query, ipam.SearchOptions{First: first, Branch: on, Finder: s.numbers})
	if errors.Is(err, refusal.ErrInvalid) {
		p.Error = refusal.Classify(err).Message
		s.render(w, r, http.StatusUnprocessableEntity, views.SearchPage(p))
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	p.Result = &res
	for _, h := range res.Hits {
		p.Rows = append(p.Rows, searchRow(actor, h))
	}
	if res.More && res.First < ipam.MaxSearchHits {
		p.MoreHref = views.SearchHref(query, ipam.MaxSearchHits, on)
	}
	s.render(w, r, http.StatusOK, views.SearchPage(p))
}

// searchHref is the search page of query.
// searchRow links a hit: to its page (an address's, views.AddressHref,
// for an allocation and for an address of a pool the user may open), and
// to the pool, VPC and subnet it lies in. A tenant opens no public pool's
// page: there a pool links to the search of its prefix, which lists what
// the tenant holds in it. A number pool, a number and an object of a
// kind: see kindsRow.
func searchRow(actor auth.Actor, h ipam.SearchHit) views.SearchRow {
	switch h.Kind {
	case search.HitNumberPool, search.HitNumber, search.HitObject:
		return kindsRow(h)
	}
	pool := ipam.Pool{Namespace: h.Namespace, Name: h.Pool, Kind: h.PoolKind, CIDR: h.CIDR}
	mayOpenPool := h.Pool != "" && (actor.IsOperator() || h.PoolKind == ipam.Private)
	namespace := h.Namespace
	if h.PoolKind == ipam.Public && h.VPC != "" {
		// A router's uplink or a floating IP: the VPC is in the owner's
		// namespace.
		namespace = h.OwnerNamespace
	}
	vpc := views.VPCHref(ipam.VPC{Namespace: namespace, Name: h.VPC})
	subnet := views.SubnetHref(ipam.Subnet{Namespace: namespace, VPC: h.VPC, Name: h.Subnet})
	row := views.SearchRow{Hit: h}
	if h.Pool != "" && h.Kind != search.HitPool {
		if mayOpenPool {
			row.In = append(row.In, views.SearchLink{Label: h.Pool, Href: views.PoolHref(pool)})
		} else {
			row.In = append(row.In, views.SearchLink{Label: h.Pool, Href: views.SearchHref(h.Pool, 0, "")})
		}
	}
	if h.VPC != "" && h.Kind != search.HitVPC {
		row.In = append(row.In, views.SearchLink{Label: "VPC " + h.VPC, Href: vpc})
	}
	if h.Subnet != "" && h.Kind != search.HitSubnet {
		row.In = append(row.In, views.SearchLink{Label: "subnet " + h.Subnet, Href: subnet})
	}
	switch h.Kind {
	case search.HitPool:
		row.Href = views.SearchHref(h.CIDR.String(), 0, "")
		if mayOpenPool {
			row.Href = views.PoolHref(pool)
		}
	case search.HitVPC:
		row.Href = vpc
	case search.HitSubnet:
		row.Href = subnet
	case search.HitAllocation:
		// Whoever sees an allocation sees its address's page.
		row.Href = views.AddressHref(pool, h.Address)
	case search.HitAddress:
		switch {
		case mayOpenPool:
			row.Href = views.AddressHref(pool, h.Address)
		case h.Pool != "":
			row.Href = views.SearchHref(h.CIDR.String(), 0, "")
		default:
			row.Href = views.PoolsPath
		}
	}
	return row
}

// kindsRow links a hit of a number pool (to its page), of a number (to its
// division in its pool's page; its pool, division and the division's
// objects in the row, its holder as the owner) or of an object (to its
// page, its kind's list in the row), each on the branch that shows it.
func kindsRow(h ipam.SearchHit) views.SearchRow {
	row := views.SearchRow{Hit: h}
	object := func(o search.ObjectRef) views.SearchLink {
		return views.SearchLink{Label: o.Kind + " " + o.Label, Href: views.ObjectHref(o.Kind, o.ID, o.Branch)}
	}
	switch h.Kind {
	case search.HitNumberPool:
		row.Href = views.NumberPoolHref(h.NumberPool.ID)
	case search.HitNumber:
		pool := views.BranchHref(views.NumberPoolHref(h.NumberPool.ID), h.Object.Branch)
		row.In = append(row.In, views.SearchLink{Label: h.NumberPool.Name, Href: pool})
		if h.Division.Label != "" {
			row.Href = views.BranchHref(views.DivisionHref(h.NumberPool.ID, h.Division.Key), h.Object.Branch)
			row.In = append(row.In, views.SearchLink{Label: h.Division.Label, Href: row.Href})
		} else {
			row.Href = pool
		}
		for _, o := range h.Division.Objects {
			row.In = append(row.In, object(o))
		}
		holder := object(h.Object)
		row.Holder = &holder
	case search.HitObject:
		row.Href = views.ObjectHref(h.Object.Kind, h.Object.ID, h.Object.Branch)
		row.In = append(row.In, views.SearchLink{Label: h.Object.Kind, Href: views.ObjectsHref(h.Object.Kind, "", 0, h.Object.Branch)})
	}
	return row
}
