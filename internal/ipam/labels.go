package ipam

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Labels follow Kubernetes' rules: a key is a name, optionally under a
// prefix that is a DNS subdomain ("pivirt.hu/tier"); a value is a name or
// empty.
const (
	// MaxLabels bounds the labels of one object.
	MaxLabels         = 64
	maxLabelNameLen   = 63
	maxLabelPrefixLen = 253
)

var (
	// labelNameRe is the name of a key, and a value that is not empty.
	labelNameRe = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
	// labelPrefixRe is a DNS subdomain in lower case.
	labelPrefixRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// labelErrors returns one *refusal.InvalidError per mistake of labels, in key
// order; the field of a label's mistake is labels.<key>.
func labelErrors(labels map[string]string) []error {
	if len(labels) > MaxLabels {
		return []error{invalid("labels", "labels holds %d entries, more than %d", len(labels), MaxLabels)}
	}
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(labels)) {
		field := "labels." + key
		if err := checkLabelKey(field, key); err != nil {
			errs = append(errs, err)
			continue
		}
		if v := labels[key]; v != "" && (len(v) > maxLabelNameLen || !labelNameRe.MatchString(v)) {
			errs = append(errs, invalid(field, "label value %s is not valid: at most %d letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty",
				describe(v), maxLabelNameLen))
		}
	}
	return errs
}

// checkLabelKey checks a label's key: [prefix/]name.
func checkLabelKey(field, key string) error {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		prefix, name = "", key
	}
	switch {
	case hasPrefix && (prefix == "" || len(prefix) > maxLabelPrefixLen || !labelPrefixRe.MatchString(prefix)):
		return invalid(field, "label key %s is not valid: its prefix, before '/', must be a DNS subdomain in lower case of at most %d characters, such as pivirt.hu",
			describe(key), maxLabelPrefixLen)
	case name == "" || len(name) > maxLabelNameLen || !labelNameRe.MatchString(name):
		return invalid(field, "label key %s is not valid: its name must be 1 to %d letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional prefix and '/' such as pivirt.hu/tier",
			describe(key), maxLabelNameLen)
	}
	return nil
}
