package web

import (
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// tableRequest is the page of an allocation table a request asks for:
// ?q= (a search), ?prefix= (the rows inside a prefix), ?page= (its number,
// from 1).
func tableRequest(r *http.Request) ipam.TableQuery {
	q := r.URL.Query()
	return ipam.TableQuery{Search: q.Get("q"), Prefix: strings.TrimSpace(q.Get("prefix")), Page: pageNumber(q.Get("page"))}
}

// allocationTable reads the page of pool's allocation table (of its
// subnet within, when read says so) that the request asks for, with its
// rows' and pages' links, at href. A search or a prefix the domain
// refuses is shown at its field, without a table, and answers 422; to
// htmx, which swaps only what succeeds, 200.
func (s *Server) allocationTable(r *http.Request, href string, pool ipam.Pool, within netip.Prefix, subnetColumn bool,
	read func(ipam.TableQuery) (ipam.AllocationTable, error)) (views.AllocationTableProps, int, error) {
	tq := tableRequest(r)
	p := views.AllocationTableProps{Href: href, Within: within.String(), Search: tq.Search, Prefix: r.URL.Query().Get("prefix"), SubnetColumn: subnetColumn}
	t, err := read(tq)
	if errors.Is(err, refusal.ErrInvalid) {
		errs := views.FieldErrors{}
		if !fieldErrorsOf(errs, err, "prefix", "search") || errs[""] != "" {
			return p, 0, err
		}
		p.PrefixError, p.SearchError = errs["prefix"], errs["search"]
		if r.Header.Get("HX-Request") == "true" {
			return p, http.StatusOK, nil
		}
		return p, http.StatusUnprocessableEntity, nil
	}
	if err != nil {
		return p, 0, err
	}
	p.Table = t
	for _, row := range t.Rows {
		ar := views.AllocationRow{TableRow: row}
		if row.Subnet != "" && pool.VPCUID != "" {
			ar.SubnetHref = views.SubnetHref(ipam.Subnet{Namespace: pool.Namespace, VPC: pool.VPCName(), Name: row.Subnet})
		}
		if row.Allocation != nil && row.VPC.Name != "" {
			ar.OwnerHref = views.VPCHref(row.VPC)
		}
		p.Rows = append(p.Rows, ar)
	}
	at := func(page int) string {
		v := url.Values{}
		if tq.Search != "" {
			v.Set("q", tq.Search)
		}
		if tq.Prefix != "" {
			v.Set("prefix", tq.Prefix)
		}
		if page > 1 {
			v.Set("page", strconv.Itoa(page))
		}
		if len(v) == 0 {
			return href
		}
		return href + "?" + v.Encode()
	}
	p.Pager = views.PagerProps{Label: "Pages of allocations", Swap: views.AllocationsSwap}
	if t.Page > 1 {
		p.Pager.PrevHref = at(t.Page - 1)
	}
	if t.Page < t.Pages {
		p.Pager.NextHref = at(t.Page + 1)
	}
	for _, n := range views.PageNumbers(t.Page, t.Pages) {
		l := views.PageLink{Number: n, Current: n == t.Page}
		if n != 0 {
			l.Href = at(n)
		}
		p.Pager.Pages = append(p.Pager.Pages, l)
	}
	return p, http.StatusOK, nil
}
