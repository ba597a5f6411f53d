package web

import (
	"net/url"
	"strings"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// changeRow is the change e as the pages list it (the audit log, the
// dashboard, the objects' histories): its sentence (audit.Describe), each
// object it names linked to its page when the reader may open it.
func changeRow(e ipam.AuditEntry, operator bool) views.ChangeRow {
	s := audit.Describe(e)
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

// changeRows are the changes es as the pages list them.
func changeRows(es []ipam.AuditEntry, operator bool) []views.ChangeRow {
	rows := make([]views.ChangeRow, len(es))
	for i, e := range es {
		rows[i] = changeRow(e, operator)
	}
	return rows
}

// refHref is the page of the object r, or "" when it has none the reader
// may open: tenants open the pages of their VPCs, subnets and private
// pools, operators every page.
func refHref(r audit.Ref, operator bool) string {
	switch r.Kind {
	case audit.KindVPC:
		return vpcHref(ipam.VPC{Namespace: r.Namespace, Name: r.Name})
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
		return poolHref(ipam.Pool{Namespace: r.Namespace, Name: r.Name})
	}
	if !operator {
		return ""
	}
	switch r.Kind {
	case audit.KindQuota:
		return "/quotas"
	case audit.KindNumberPool:
		return numberPoolHref(url.PathEscape(r.Name))
	case audit.KindBranch:
		return "/branches/" + url.PathEscape(r.Name)
	}
	if audit.IsObjectKind(r.Kind) {
		return objectHref(url.PathEscape(r.Kind), url.PathEscape(r.Name), r.Branch)
	}
	return ""
}
