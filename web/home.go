package web

import (
	"context"
	"net/http"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/dashboard"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// dashboardRows is how many of the pools closest to exhaustion the
// dashboard lists unless asked for all (?all=1).
const dashboardRows = 10

// home answers GET /: the dashboard (dashboard.Service) and the
// service's state. With the database down, the state alone says so.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	actor, _ := actorFrom(r.Context())
	d := views.HomeProps{Shell: s.shell(r, "Dashboard"), Version: s.version}
	h, err := s.ipam.Health(ctx)
	if err != nil {
		d.DatabaseError = err.Error()
		s.render(w, r, http.StatusOK, views.Home(d))
		return
	}
	d.DatabaseOK, d.SchemaVersion = true, h.SchemaVersion
	dash, err := s.dashboard(ctx, actor, r.URL.Query().Get("all") != "")
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	d.Dashboard = &dash
	s.render(w, r, http.StatusOK, views.Home(d))
}

// dashboard reads the actor's dashboard (dashboard.Service): all its rows
// when all is set.
func (s *Server) dashboard(ctx context.Context, actor auth.Actor, all bool) (views.DashboardProps, error) {
	now := time.Now()
	shown := dashboardRows
	if all {
		shown = -1
	}
	dash, err := s.dashboards.Dashboard(ctx, actor, now, shown)
	if err != nil {
		return views.DashboardProps{}, err
	}
	p := views.DashboardProps{Operator: actor.IsOperator(), Now: now, AllHref: "/?all=1", Shown: dash.Shown}
	for _, row := range dash.Rows {
		p.Rows = append(p.Rows, exhaustionRow(row))
	}
	if p.Operator {
		p.Counts = append(p.Counts, views.DashboardCount{One: "IP pool", Many: "IP pools", TestID: "count-pools", Value: dash.Pools, Href: views.PoolsPath})
		if dash.IPv6Pools > 0 {
			p.Counts = append(p.Counts, views.DashboardCount{One: "of them IPv6", Many: "of them IPv6", TestID: "count-ipv6-pools", Value: dash.IPv6Pools, Href: views.PoolsPath})
		}
	}
	if dash.NumberPools > 0 {
		p.Counts = append(p.Counts, views.DashboardCount{One: "number pool", Many: "number pools", TestID: "count-number-pools", Value: dash.NumberPools, Href: views.ResourceManagersPath})
	}
	p.Counts = append(p.Counts,
		views.DashboardCount{One: "VPC", Many: "VPCs", TestID: "count-vpcs", Value: dash.VPCs, Href: views.VPCsPath},
		views.DashboardCount{One: "subnet", Many: "subnets", TestID: "count-subnets", Value: dash.Subnets, Href: views.VPCsPath},
		views.DashboardCount{One: "allocation", Many: "allocations", TestID: "count-allocations", Value: dash.Allocations, Href: views.PoolsPath},
		views.DashboardCount{One: "change today", Many: "changes today", TestID: "count-changes", Value: dash.ChangesToday, AtLeast: dash.ChangesToday >= ipam.MaxChangesCounted, Href: changesHref(p.Operator)},
	)
	if p.Changes, err = s.changeRows(ctx, actor, dash.Recent); err != nil {
		return p, err
	}
	return p, nil
}

// changesHref is where the count of today's changes leads: the audit log
// for operators, the dashboard's list for tenants.
func changesHref(operator bool) string {
	if operator {
		return views.AuditPath
	}
	return "/#recent-changes"
}

// exhaustionRow is the dashboard's row of a pool's, a subnet's or a
// division's trend.
func exhaustionRow(r dashboard.Row) views.ExhaustionRow {
	row := views.ExhaustionRow{Usage: r.Usage, History: r.History, Forecast: r.Forecast}
	switch t := r.Trend; {
	case r.Division != nil:
		b := r.Division
		row.Kind, row.Name, row.Href = "number pool", b.Pool.Name, views.DivisionHref(b.Pool.ID, divisionKey(b.Division))
		if len(b.Division.Entries) > 0 {
			row.Name += "/" + b.Division.DisplayLabel
			row.Detail = strings.Join(b.Pool.ScopeNames(), " / ")
		}
	case t.Subnet.UID != "":
		row.Kind, row.Name, row.Detail, row.Href = "subnet", t.Subnet.Namespace+"/"+t.Subnet.VPC+"/"+t.Subnet.Name, t.Subnet.CIDR.String(), views.SubnetHref(t.Subnet)
		if t.IPv6 {
			row.IPv6, row.Detail = true, t.Subnet.IPv6CIDR.String()
		}
	case t.Pool.Kind == ipam.Private:
		row.Kind, row.Name, row.Detail = "VPC", t.Pool.Namespace+"/"+t.VPC, t.Pool.CIDR.String()
		row.Href, row.IPv6 = views.VPCHref(ipam.VPC{Namespace: t.Pool.Namespace, Name: t.VPC}), t.IPv6
	default:
		row.Kind, row.Name, row.Detail, row.Href = "public pool", t.Pool.Name, t.Pool.CIDR.String(), views.PoolHref(t.Pool)
	}
	return row
}
