package web

import (
	"net/http"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// subnetShow answers GET /subnets/<namespace>/<vpc>/<name>: the subnet's
// figures, its usage over time (?span=7d|30d|1y) with the forecast, and
// that of its IPv6 prefix when it has one, its
// address map and its allocation table (?q= to search, ?prefix= to keep
// a prefix, ?page= by number: allocationTable). Whoever may not see the
// VPC gets the page of a subnet that does not exist.
func (s *Server) subnetShow(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	path, name := splitPath(r.PathValue("path"))
	namespace, vpc := splitPath(path)
	if namespace == "" {
		s.notFound(w, r)
		return
	}
	q := r.URL.Query()
	d, err := s.ipam.SubnetDetail(r.Context(), actor, namespace, vpc, name)
	if err != nil {
		s.failed(w, r, err)
		return
	}
	chart, err := s.ipam.UsageChart(r.Context(), actor, d.Subnet.Namespace, d.Subnet.UID, d.Usage, views.ChartSpan(q.Get("span")), time.Now())
	if err != nil {
		s.failed(w, r, err)
		return
	}
	href := views.SubnetHref(d.Subnet)
	p := views.SubnetPageProps{Shell: s.shell(r, d.Subnet.Name), Detail: d, Href: href, VPCHref: views.VPCHref(d.VPC), PoolHref: views.PoolHref(d.Pool),
		Chart: views.UsageChartProps{Chart: chart, Href: href}}
	if d.Subnet.IPv6CIDR.IsValid() {
		p.IPv6Href = poolTableHref(views.PoolHref(ipam.Pool{Namespace: d.VPC.Namespace, Name: d.VPC.IPv6PoolName()}), d.Subnet.IPv6CIDR)
		if p.IPv6Usage, err = s.ipam.SubnetIPv6Usage(r.Context(), actor, d.Subnet); err != nil {
			s.failed(w, r, err)
			return
		}
		chart, err := s.ipam.UsageChart(r.Context(), actor, d.Subnet.Namespace, ipam.SubnetIPv6HistoryUID(d.Subnet), p.IPv6Usage, views.ChartSpan(q.Get("span")), time.Now())
		if err != nil {
			s.failed(w, r, err)
			return
		}
		p.IPv6Chart = views.UsageChartProps{Chart: chart, Href: href, IPv6: true}
	}
	table, status, err := s.allocationTable(r, href, d.Pool, d.Subnet.CIDR, false, func(tq ipam.TableQuery) (ipam.AllocationTable, error) {
		return s.ipam.SubnetTable(r.Context(), actor, d.Subnet, tq)
	})
	if err != nil {
		s.failed(w, r, err)
		return
	}
	p.Table = table
	ref := audit.Ref{Kind: audit.KindSubnet, Namespace: d.Subnet.Namespace, Name: d.VPC.Name + "/" + d.Subnet.Name}
	if p.History, err = s.history(r.Context(), ref, "subnet "+d.Subnet.Name); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.renderPageStatus(w, r, status, views.SubnetPage(p), "allocations")
}
