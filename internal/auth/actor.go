// Package auth says who is asking and what they may see: users, their
// roles and namespaces, passwords and API tokens.
package auth

import "strings"

// A Role is what a user may do.
type Role string

// The roles.
const (
	// Operator may do everything: public pools, every namespace.
	Operator Role = "operator"
	// Tenant sees and changes only the namespaces matching its patterns.
	Tenant Role = "tenant"
)

// An Actor is the user on whose behalf a request runs.
type Actor struct {
	Name       string
	Role       Role
	Namespaces []string // patterns such as "acme/prod" or "acme/*"
}

// System is the actor of changes made by the service itself (demo data,
// manifests applied from the command line).
var System = Actor{Name: "system", Role: Operator}

// IsOperator reports whether a may do everything.
func (a Actor) IsOperator() bool { return a.Role == Operator }

// CanAccess reports whether a may see and change objects of namespace.
// The cluster scope (the empty namespace, where public pools live) is the
// operators'.
func (a Actor) CanAccess(namespace string) bool {
	if a.IsOperator() {
		return true
	}
	if namespace == "" || a.Role != Tenant {
		return false
	}
	for _, p := range a.Namespaces {
		if MatchNamespace(p, namespace) {
			return true
		}
	}
	return false
}

// MatchNamespace reports whether namespace matches pattern: either the same
// namespace, or pattern "p/*" and namespace "p/…" (any depth). "acme/*"
// matches "acme/prod" but neither "acme" nor "acme-corp/prod".
func MatchNamespace(pattern, namespace string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "/*"); ok {
		return strings.HasPrefix(namespace, prefix+"/") && len(namespace) > len(prefix)+1
	}
	return pattern == namespace
}
