package ipam

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// A QuotaKind is a kind of thing a quota bounds. What each counts in a
// namespace (docs/allocation.md, "Quotas"): QuotaVPCs its VPCs,
// QuotaSubnets the subnets of its VPCs, QuotaFloatingIPs its floating
// IPs, QuotaAddresses every address its owners hold (VM interfaces, node
// addresses, router uplinks and floating IPs alike).
type QuotaKind string

// The kinds of quotas.
const (
	QuotaVPCs        QuotaKind = store.QuotaVPCs
	QuotaSubnets     QuotaKind = store.QuotaSubnets
	QuotaFloatingIPs QuotaKind = store.QuotaFloatingIPs
	QuotaAddresses   QuotaKind = store.QuotaAddresses
)

// QuotaKinds are the kinds of quotas in the order pages and lists show
// them.
var QuotaKinds = []QuotaKind{QuotaVPCs, QuotaSubnets, QuotaFloatingIPs, QuotaAddresses}

// quotaNouns are each kind's noun, singular and plural.
var quotaNouns = map[QuotaKind][2]string{
	QuotaVPCs:        {"VPC", "VPCs"},
	QuotaSubnets:     {"subnet", "subnets"},
	QuotaFloatingIPs: {"floating IP", "floating IPs"},
	QuotaAddresses:   {"address", "addresses"},
}

// Label names the things of kind k, as in "floating IPs".
func (k QuotaKind) Label() string { return quotaNouns[k][1] }

// Count says n things of kind k: "1 VPC", "2 floating IPs".
func (k QuotaKind) Count(n int64) string {
	if n == 1 {
		return "1 " + quotaNouns[k][0]
	}
	return strconv.FormatInt(n, 10) + " " + quotaNouns[k][1]
}

// MaxQuotaLimit is the highest limit a quota may set: GraphQL's Int.
const MaxQuotaLimit = math.MaxInt32

// A Quota bounds what each namespace matching Pattern may hold: at most
// Limits[kind] things of each kind given; a kind absent has no limit.
// Every namespace the pattern matches has its own limits ("acme/*" with 2
// floating IPs lets acme/prod hold 2 and acme/dev 2), and a namespace that
// several quotas match is bound by each of them.
type Quota struct {
	Pattern   string
	Limits    map[QuotaKind]int64
	UpdatedAt time.Time
	UpdatedBy string
}

// Describe says the limits of q: "2 VPCs, 3 subnets and 1 floating IP".
func (q Quota) Describe() string {
	var parts []string
	for _, k := range QuotaKinds {
		if n, ok := q.Limits[k]; ok {
			parts = append(parts, k.Count(n))
		}
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

func quotaFromRow(r store.QuotaRow) Quota {
	q := Quota{Pattern: r.Pattern, Limits: make(map[QuotaKind]int64, len(r.Limits)), UpdatedAt: r.UpdatedAt, UpdatedBy: r.UpdatedBy}
	for k, n := range r.Limits {
		q.Limits[QuotaKind(k)] = n
	}
	return q
}

func (q Quota) row() store.QuotaRow {
	r := store.QuotaRow{Pattern: q.Pattern, Limits: make(map[string]int64, len(q.Limits)), UpdatedBy: q.UpdatedBy}
	for k, n := range q.Limits {
		r.Limits[string(k)] = n
	}
	return r
}

// audit is the quota as its audit entries record it.
func (q Quota) audit() store.RawJSON {
	limits := map[string]int64{}
	for k, n := range q.Limits {
		limits[string(k)] = n
	}
	return store.JSON(audit.Quota{Pattern: q.Pattern, Limits: limits})
}

// A QuotaChange changes the quota of Pattern: it sets the limits of Set
// and lifts those of Lift; the other limits stay as they are.
type QuotaChange struct {
	Pattern string
	Set     map[QuotaKind]int64
	Lift    []QuotaKind
}

// A QuotaError is a claim refused because its namespace holds the limit
// of a quota already: the tightest of the quotas that match it (the
// lowest limit; of equal ones, the most specific pattern).
type QuotaError struct {
	Namespace string
	Kind      QuotaKind
	Limit     int64
	Pattern   string
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("namespace %s has reached its quota of %s (set for %s)", e.Namespace, e.Kind.Count(e.Limit), e.Pattern)
}

// Unwrap makes errors.Is(err, refusal.ErrQuotaExceeded) hold.
func (e *QuotaError) Unwrap() error { return refusal.ErrQuotaExceeded }

// checkPattern checks a quota's namespace pattern.
func checkPattern(p string) error {
	switch {
	case p == "":
		return invalid("pattern", "pattern is required: a namespace such as acme/prod, or acme/* for every namespace under acme")
	case len(p) > maxNamespaceLen+2 || !auth.IsNamespacePattern(p):
		return invalid("pattern", "pattern %s is not a namespace pattern such as acme/prod or acme/*", describe(p))
	}
	return nil
}

// ValidateQuotaChange checks c as SetQuota does, without the database,
// and reports every mistake at once: its pattern's, and each limit's.
func ValidateQuotaChange(c QuotaChange) error {
	errs := []error{checkPattern(c.Pattern)}
	if len(c.Set) == 0 && len(c.Lift) == 0 {
		errs = append(errs, invalid("limits", "give at least one limit to set (%s)", kindList()))
	}
	for _, k := range slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(c.Set)), c.Lift...))) {
		if _, ok := quotaNouns[k]; !ok {
			errs = append(errs, invalid("limits", "%q is no kind of quota: %s", k, kindList()))
		}
	}
	for _, k := range QuotaKinds {
		n, set := c.Set[k]
		switch {
		case set && slices.Contains(c.Lift, k):
			errs = append(errs, invalid(string(k), "the limit of %s is both set and lifted: give one", k.Label()))
		case set && (n < 0 || n > MaxQuotaLimit):
			errs = append(errs, invalid(string(k), "a limit of %d %s is out of range: 0 to %d", n, k.Label(), MaxQuotaLimit))
		}
	}
	return refusal.Collect(errs...)
}

// Quotas lists every quota, in pattern order (operators only).
func (s *Service) Quotas(ctx context.Context, actor auth.Actor) ([]Quota, error) {
	if !actor.IsOperator() {
		return nil, forbidden("only operators list quotas")
	}
	rows, err := store.Quotas(ctx, s.db)
	if err != nil {
		return nil, err
	}
	out := make([]Quota, len(rows))
	for i, r := range rows {
		out[i] = quotaFromRow(r)
	}
	return out, nil
}

// Quota returns the quota of pattern (operators only).
func (s *Service) Quota(ctx context.Context, actor auth.Actor, pattern string) (Quota, error) {
	if !actor.IsOperator() {
		return Quota{}, forbidden("only operators read quotas by pattern; use the quotas of a namespace")
	}
	if err := checkPattern(pattern); err != nil {
		return Quota{}, err
	}
	r, err := store.Quota(ctx, s.db, pattern, false)
	if errors.Is(err, store.ErrNotFound) {
		return Quota{}, notFound("quota", "", pattern)
	}
	if err != nil {
		return Quota{}, err
	}
	return quotaFromRow(r), nil
}

// SetQuota makes the change to the quota of its pattern, creating it if
// there is none (operators only), and returns the quota. A quota left
// with no limit is refused: unset it instead. Claims already made are
// never taken back: a namespace holding more than a new limit keeps what
// it holds, and its claims are refused until it holds less.
func (s *Service) SetQuota(ctx context.Context, actor auth.Actor, c QuotaChange) (Quota, error) {
	if !actor.IsOperator() {
		return Quota{}, forbidden("only operators set quotas")
	}
	if err := ValidateQuotaChange(c); err != nil {
		return Quota{}, err
	}
	var q Quota
	err := s.inTx(ctx, func(tx *store.Tx, _ *undoList) error {
		before, err := store.Quota(ctx, tx, c.Pattern, true)
		found := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		q = quotaFromRow(before)
		q.Pattern, q.UpdatedBy = c.Pattern, actor.Name
		for k, n := range c.Set {
			q.Limits[k] = n
		}
		for _, k := range c.Lift {
			delete(q.Limits, k)
		}
		if len(q.Limits) == 0 {
			return invalid("limits", "the quota of %s would have no limit left: unset it instead", c.Pattern)
		}
		stored, err := store.PutQuota(ctx, tx, q.row())
		if err != nil {
			return err
		}
		q = quotaFromRow(stored)
		entry := store.AuditEntry{Actor: actor.Name, Action: audit.Create, ObjectKind: audit.KindQuota, ObjectName: q.Pattern, After: q.audit()}
		if found {
			entry.Action, entry.Before = audit.Update, quotaFromRow(before).audit()
		}
		return store.InsertAudit(ctx, tx, entry)
	})
	return q, err
}

// UnsetQuota deletes the quota of pattern (operators only) and returns
// it; NOT_FOUND when there is none.
func (s *Service) UnsetQuota(ctx context.Context, actor auth.Actor, pattern string) (Quota, error) {
	if !actor.IsOperator() {
		return Quota{}, forbidden("only operators unset quotas")
	}
	if err := checkPattern(pattern); err != nil {
		return Quota{}, err
	}
	var q Quota
	err := s.inTx(ctx, func(tx *store.Tx, _ *undoList) error {
		r, err := store.DeleteQuota(ctx, tx, pattern)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("quota", "", pattern)
		}
		if err != nil {
			return err
		}
		q = quotaFromRow(r)
		return store.InsertAudit(ctx, tx, store.AuditEntry{Actor: actor.Name, Action: audit.Delete, ObjectKind: audit.KindQuota, ObjectName: pattern, Before: q.audit()})
	})
	return q, err
}

// kindList names the kinds of quotas for a message.
func kindList() string {
	names := make([]string, len(QuotaKinds))
	for i, k := range QuotaKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// A NamespaceQuota is a quota as it binds one namespace: its limits, and
// what the namespace holds of every kind.
type NamespaceQuota struct {
	Quota
	Namespace string
	Used      map[QuotaKind]int64
}

// NamespaceQuotas returns the quotas that bind namespace, in pattern
// order, each with what the namespace holds. A tenant asking of a
// namespace that is not its own gets none, as for any list.
func (s *Service) NamespaceQuotas(ctx context.Context, actor auth.Actor, namespace string) ([]NamespaceQuota, error) {
	if err := checkNamespace("namespace", namespace); err != nil {
		return nil, err
	}
	if !actor.CanAccess(namespace) {
		return []NamespaceQuota{}, nil
	}
	rows, err := store.QuotasOf(ctx, s.db, namespace)
	if err != nil || len(rows) == 0 {
		return []NamespaceQuota{}, err
	}
	usage, err := store.NamespaceUsage(ctx, s.db, []string{namespace})
	if err != nil {
		return nil, err
	}
	used := make(map[QuotaKind]int64, len(QuotaKinds))
	for k, n := range usage[namespace] {
		used[QuotaKind(k)] = n
	}
	out := make([]NamespaceQuota, len(rows))
	for i, r := range rows {
		out[i] = NamespaceQuota{Quota: quotaFromRow(r), Namespace: namespace, Used: used}
	}
	return out, nil
}

// A QuotaUse is how the namespaces a quota binds use one of its limits,
// in figures that do not grow with the namespaces (internal/metrics).
type QuotaUse struct {
	Pattern string
	Kind    QuotaKind
	Limit   int64
	// Namespaces counts the namespaces the pattern matches that hold
	// anything (a VPC, a floating IP or an address); MaxUsed is the most
	// any of them holds of Kind, AtLimit how many hold Limit or more.
	Namespaces int
	MaxUsed    int64
	AtLimit    int
}

// QuotaUses returns the use of every limit of every quota, in pattern
// then kind order (operators only). It reads what each namespace under a
// quota holds: a count of its rows, each from an index.
func (s *Service) QuotaUses(ctx context.Context, actor auth.Actor) ([]QuotaUse, error) {
	quotas, err := s.Quotas(ctx, actor)
	if err != nil || len(quotas) == 0 {
		return nil, err
	}
	patterns := make([]string, len(quotas))
	for i, q := range quotas {
		patterns[i] = q.Pattern
	}
	namespaces, err := store.QuotaNamespaces(ctx, s.db, patterns)
	if err != nil {
		return nil, err
	}
	usage, err := store.NamespaceUsage(ctx, s.db, namespaces)
	if err != nil {
		return nil, err
	}
	var out []QuotaUse
	for _, q := range quotas {
		var bound []string
		for _, ns := range namespaces {
			if auth.MatchNamespace(q.Pattern, ns) {
				bound = append(bound, ns)
			}
		}
		for _, k := range QuotaKinds {
			limit, ok := q.Limits[k]
			if !ok {
				continue
			}
			u := QuotaUse{Pattern: q.Pattern, Kind: k, Limit: limit, Namespaces: len(bound)}
			for _, ns := range bound {
				n := usage[ns][string(k)]
				u.MaxUsed = max(u.MaxUsed, n)
				if n >= limit {
					u.AtLimit++
				}
			}
			out = append(out, u)
		}
	}
	return out, nil
}

// checkQuota refuses, in tx, one more thing of kind in namespace when a
// quota's limit is reached, and reports whether a quota of kind binds the
// namespace. Where none does it costs one probe of the quotas; where one
// does, it takes the namespace's quota lock, then counts in a snapshot
// taken under it, so that of two transactions adding to one namespace the
// second counts what the first added (docs/allocation.md, "Quotas").
func (s *Service) checkQuota(ctx context.Context, tx *store.Tx, namespace string, kind QuotaKind) (bound bool, err error) {
	applies, err := store.QuotaApplies(ctx, tx, namespace, string(kind))
	if err != nil || !applies {
		return false, err
	}
	if err := store.LockQuotas(ctx, tx, namespace); err != nil {
		return true, err
	}
	limits, used, err := store.QuotaUsage(ctx, tx, namespace, string(kind))
	if err != nil || len(limits) == 0 {
		return len(limits) > 0, err
	}
	tight := limits[0]
	for _, l := range limits[1:] {
		if l.Limit < tight.Limit || l.Limit == tight.Limit && moreSpecific(l.Pattern, tight.Pattern) {
			tight = l
		}
	}
	if used >= tight.Limit {
		return true, &QuotaError{Namespace: namespace, Kind: kind, Limit: tight.Limit, Pattern: tight.Pattern}
	}
	return true, nil
}

// moreSpecific reports whether pattern a, matching some namespace, says
// more of it than pattern b, which matches it too: the namespace itself
// says most, then the longest prefix.
func moreSpecific(a, b string) bool {
	aExact, bExact := !strings.HasSuffix(a, "/*"), !strings.HasSuffix(b, "/*")
	if aExact != bExact {
		return aExact
	}
	return len(a) > len(b)
}
