package auth

import (
	"fmt"
	"regexp"
	"unicode/utf8"
)

// MinPasswordLength is the fewest characters a password may have.
const MinPasswordLength = 12

var (
	userNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	// A namespace is segments of lowercase letters, digits and inner
	// hyphens joined by "/"; a pattern may end in "/*".
	namespacePatternPattern = regexp.MustCompile(
		`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(/[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(/\*)?$`)
)

// ValidateUser checks the fields of a new user and returns an
// *InvalidError naming the first wrong one.
func ValidateUser(name string, role Role, namespaces []string, password string) error {
	if !userNamePattern.MatchString(name) {
		return &InvalidError{"name", fmt.Sprintf("%q is not 1 to 63 lowercase letters, digits, '.', '_' or '-' starting with a letter or digit", name)}
	}
	switch role {
	case Operator:
		if len(namespaces) > 0 {
			return &InvalidError{"namespace", "an operator sees every namespace and takes no pattern"}
		}
	case Tenant:
		if len(namespaces) == 0 {
			return &InvalidError{"namespace", "a tenant needs at least one namespace pattern"}
		}
	default:
		return &InvalidError{"role", fmt.Sprintf("%q is neither operator nor tenant", role)}
	}
	for _, p := range namespaces {
		if !namespacePatternPattern.MatchString(p) {
			return &InvalidError{"namespace", fmt.Sprintf("%q is not a namespace pattern such as acme/prod or acme/*", p)}
		}
	}
	return ValidatePassword(password)
}

// IsNamespacePattern reports whether p is a namespace pattern such as
// acme/prod or acme/*, as tenants are bound to and quotas are set for.
func IsNamespacePattern(p string) bool { return namespacePatternPattern.MatchString(p) }

// ValidatePassword checks that password is long enough.
func ValidatePassword(password string) error {
	if utf8.RuneCountInString(password) < MinPasswordLength {
		return &InvalidError{"password", fmt.Sprintf("must be at least %d characters", MinPasswordLength)}
	}
	return nil
}
