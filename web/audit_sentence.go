package web

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/views"
)

// changeRow is the change e as the pages list it (the audit log, the
// dashboard, the objects' histories): its sentence (audit.DescribeWith,
// the holders of numbers named where known), each object it names linked
// to its page when the reader may open it.
func changeRow(e ipam.AuditEntry, operator bool, holders map[audit.HolderKey]audit.Holder) views.ChangeRow {
	s := audit.DescribeWith(e, holders)
	row := views.ChangeRow{ID: e.ID, At: e.At, Actor: s.Actor, Fields: s.Fields, Details: s.Details, Namespace: e.Namespace}
	for _, p := range s.Parts {
		part := views.SentencePart{Text: p.Text}
		if p.Ref != nil {
			part.Href = refHref(*p.Ref, operator)
		}
		row.Parts = append(row.Parts, part)
	}
	return row
}

// changeRows are the changes es as the pages list them to actor.
func (s *Server) changeRows(ctx context.Context, actor auth.Actor, es []ipam.AuditEntry) ([]views.ChangeRow, error) {
	holders, err := s.numberHolders(ctx, actor, es)
	if err != nil {
		return nil, err
	}
	rows := make([]views.ChangeRow, len(es))
	for i, e := range es {
		rows[i] = changeRow(e, actor.IsOperator(), holders)
	}
	return rows, nil
}

// numberHolders returns the objects that hold the numbers that es
// allocate and release, as the branch of each entry shows them now (one
// read of a pool and one of its kind's objects per branch and pool); an
// object no longer shown, on a branch or of a pool no longer there, stays
// unnamed. Only operators read objects of kinds.
func (s *Server) numberHolders(ctx context.Context, actor auth.Actor, es []ipam.AuditEntry) (map[audit.HolderKey]audit.Holder, error) {
	if !actor.IsOperator() {
		return nil, nil
	}
	type branchPool struct{ branch, pool string }
	wanted := map[branchPool][]string{}
	for _, e := range es {
		if key, pool, ok := audit.HolderOf(e); ok {
			bp := branchPool{cmp.Or(key.Branch, branch.Main), pool}
			wanted[bp] = append(wanted[bp], key.ID)
		}
	}
	out := map[audit.HolderKey]audit.Holder{}
	kinds := map[string]string{}
	for bp, ids := range wanted {
		kind, ok := kinds[bp.pool]
		if !ok {
			pool, err := s.numbers.Pool(ctx, actor, bp.pool)
			if err != nil && !errors.Is(err, refusal.ErrNotFound) {
				return nil, err
			}
			kind, kinds[bp.pool] = pool.Kind, pool.Kind
		}
		if kind == "" {
			continue
		}
		page, err := s.branches.Objects(ctx, actor, bp.branch, kind, branch.Filter{IDs: ids}, branch.MaxPage, 0)
		if errors.Is(err, refusal.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, o := range page.Objects {
			out[audit.HolderKey{Branch: bp.branch, ID: o.ID}] = audit.Holder{Kind: o.Kind, Label: cmp.Or(o.DisplayLabel, o.ID)}
		}
	}
	return out, nil
}

// refHref is the page of the object r, or "" when it has none the reader
// may open: tenants open the pages of their VPCs, subnets and private
// pools, operators every page.
func refHref(r audit.Ref, operator bool) string {
	switch r.Kind {
	case audit.KindVPC:
		return views.VPCHref(ipam.VPC{Namespace: r.Namespace, Name: r.Name})
	case audit.KindSubnet:
		vpc, name, ok := strings.Cut(r.Name, "/")
		if !ok {
			return ""
		}
		return views.SubnetHref(ipam.Subnet{Namespace: r.Namespace, VPC: vpc, Name: name})
	case audit.KindPool:
		if r.Namespace == "" && !operator {
			return ""
		}
		return views.PoolHref(ipam.Pool{Namespace: r.Namespace, Name: r.Name})
	}
	if !operator {
		return ""
	}
	switch r.Kind {
	case audit.KindQuota:
		return views.QuotasPath
	case audit.KindNumberPool:
		return views.NumberPoolHref(r.Name)
	case audit.KindBranch:
		return views.BranchPageHref(r.Name)
	}
	if audit.IsObjectKind(r.Kind) {
		return views.ObjectHref(r.Kind, r.Name, r.Branch)
	}
	return ""
}
