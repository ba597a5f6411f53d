// Package manifest reads and writes PiVirt IPAM objects as YAML manifests
// (apiVersion pivirt.hu/v1, testdata/seed-*.yaml): Parse reads the pools and VPCs of a
// manifest for ipam apply, the Write functions print pools, allocations
// and VPCs for ipam get, as YAML documents or as tables.
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/refusal"
)

// The bounds of a manifest.
const (
	MaxBytes     = 4 << 20 // 4 MiB
	MaxDocuments = 10000
	// MaxExcludes bounds the excludes of a pool; ranges hold runs of
	// addresses.
	MaxExcludes = 4096
	// MaxErrors is how many mistakes Parse reports before it stops.
	MaxErrors = 20
)

// The API version and kinds of a manifest.
const (
	APIVersion     = "pivirt.hu/v1"
	KindPool       = ipam.KindPool
	KindAllocation = "IPAllocation"
	KindVPC        = ipam.KindVPC
	// ManagedByLabel marks the allocations the director made.
	ManagedByLabel = "pivirt.hu/managed-by"
)

// The refusals of what is never applied, word for word.
const (
	privatePoolRefusal = ipam.PrivatePoolRefusal
	allocationRefusal  = "allocations are made by Allocate, never applied"
)

// The known fields of each mapping, in the order a manifest writes them.
var (
	objectFields      = []string{"apiVersion", "kind", "metadata", "spec"}
	metadataFields    = []string{"name", "namespace", "uid", "labels", "ownerRefs"}
	ownerRefFields    = []string{"kind", "uid", "controller"}
	specFields        = []string{"cidr", "kind", "gateway", "exclude", "zone", "delegatedPrefixLength"}
	vpcFields         = []string{"apiVersion", "kind", "metadata", "spec", "status"}
	vpcMetadataFields = []string{"name", "namespace", "uid"}
	vpcSpecFields     = []string{"cidr", "zone", "ipv6Cidr", "ipv6PrefixLength", "ipv6Addressing", "subnets"}
	subnetFields      = []string{"name", "cidr", "gateway", "ipv6Cidr", "ipv6PrefixLength"}
)

// An Error is one mistake in a manifest.
type Error struct {
	// Document is the number of the document, from 1, counting empty
	// ones; 0 when the manifest holds one object or the mistake is the
	// manifest's as a whole.
	Document int
	// Line is the line on which the document's object starts.
	Line int
	// Path is the field's path, such as spec.exclude[1]; "" when the
	// mistake is the document's as a whole.
	Path    string
	Message string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Document > 0 {
		fmt.Fprintf(&b, "document %d (line %d): ", e.Document, e.Line)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Errors are the mistakes of a manifest in document order, one a line.
type Errors []*Error

func (errs Errors) Error() string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap lets errors.As find each Error.
func (errs Errors) Unwrap() []error {
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}

// Parse reads a manifest: a stream of YAML documents, each one object, an
// IPAMPool (a public pool, or a VPC's private pool as ipam get prints it)
// or a VPC with its subnets. It returns the objects in document order, each
// checked as ipam.Apply checks it (ipam.ValidatePublicPool,
// ValidatePrivatePool, ValidateVPC); or, when any document is refused, an
// Errors naming every mistake (up to MaxErrors) by document and field, and
// no object. Empty documents are skipped; a manifest without an object is
// refused.
//
// A pool's metadata.uid, as ipam get prints it, is accepted and ignored: a
// pool is known by its name. A VPC's status is accepted and ignored.
func Parse(r io.Reader) ([]ipam.ApplyObject, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("unable to read the manifest: %w", err)
	}
	if len(data) > MaxBytes {
		return nil, Errors{{Message: fmt.Sprintf("the manifest is larger than %d MiB; split it into several files", MaxBytes>>20)}}
	}
	docs, err := decode(data)
	if err != nil {
		return nil, err
	}
	nonEmpty := 0
	for _, d := range docs {
		if d != nil {
			nonEmpty++
		}
	}
	if nonEmpty == 0 {
		return nil, Errors{{Message: "the manifest holds no object; write an IPAMPool with apiVersion: " + APIVersion + ", kind: " + KindPool + ", metadata and spec"}}
	}
	c := checker{names: map[string]int{}, uids: map[string]int{}}
	var objects []ipam.ApplyObject
	for i, d := range docs {
		if d == nil {
			continue
		}
		c.doc, c.line = i+1, d.Line
		if o, ok := c.object(d); ok {
			objects = append(objects, o)
		}
		if c.full {
			break
		}
	}
	if len(c.errs) == 0 {
		return objects, nil
	}
	if c.full {
		c.errs = append(c.errs, &Error{Message: fmt.Sprintf("stopped after %d mistakes; correct these first", MaxErrors)})
	}
	if nonEmpty == 1 {
		for _, e := range c.errs {
			e.Document = 0
		}
	}
	return nil, c.errs
}

// decode splits data into its documents' root nodes; nil stands for an
// empty document.
func decode(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, Errors{{Message: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
		}
		if len(docs) == MaxDocuments {
			return nil, Errors{{Message: fmt.Sprintf("the manifest holds more than %d documents; split it into several files", MaxDocuments)}}
		}
		var root *yaml.Node
		if len(doc.Content) > 0 {
			if root = resolve(doc.Content[0]); isNull(root) {
				root = nil
			}
		}
		docs = append(docs, root)
	}
}

// checker collects the mistakes of the documents.
type checker struct {
	errs      Errors
	full      bool           // MaxErrors reached: the rest is not checked
	doc, line int            // the document being checked
	names     map[string]int // kinds, namespaces and names seen, with their document
	uids      map[string]int // VPC uids seen, with their document
}

// add records a mistake of the current document, up to MaxErrors.
func (c *checker) add(path, format string, args ...any) {
	if len(c.errs) == MaxErrors {
		c.full = true
		return
	}
	c.errs = append(c.errs, &Error{Document: c.doc, Line: c.line, Path: path, Message: fmt.Sprintf(format, args...)})
}

// object checks one document; ok is false when it is refused.
func (c *checker) object(root *yaml.Node) (o ipam.ApplyObject, ok bool) {
	if root.Kind != yaml.MappingNode {
		c.add("", "must be a mapping of apiVersion, kind, metadata and spec, got %s", describe(root))
		return o, false
	}
	switch v := lookup(root, "apiVersion"); {
	case isNull(v):
		c.add("apiVersion", "required")
		return o, false
	case v.Kind != yaml.ScalarNode || v.Value != APIVersion:
		c.add("apiVersion", "must be %s, got %s", APIVersion, describe(v))
		return o, false
	}
	switch v := lookup(root, "kind"); {
	case isNull(v):
		c.add("kind", "required")
	case v.Kind == yaml.ScalarNode && v.Value == KindAllocation:
		c.add("", allocationRefusal)
	case v.Kind == yaml.ScalarNode && v.Value == KindPool && isPrivate(root):
		in, ok := c.privatePool(root)
		return ipam.ApplyObject{PrivatePool: &in}, ok
	case v.Kind == yaml.ScalarNode && v.Value == KindPool:
		in, ok := c.publicPool(root)
		return ipam.ApplyObject{PublicPool: &in}, ok
	case v.Kind == yaml.ScalarNode && v.Value == KindVPC:
		in, ok := c.vpc(root)
		return ipam.ApplyObject{VPC: &in}, ok
	default:
		c.add("kind", "ipam apply accepts %s and %s documents, got %s", KindPool, KindVPC, describe(v))
	}
	return o, false
}

// publicPool checks the document of a public pool.
func (c *checker) publicPool(root *yaml.Node) (in ipam.CreatePublicPoolInput, ok bool) {
	before := len(c.errs)
	object := c.fields("", root, objectFields, "an object")
	if metadata := c.mapping("metadata", object["metadata"]); metadata != nil {
		fields := c.fields("metadata", metadata, metadataFields, "metadata")
		in.Name = c.str("metadata.name", fields["name"], true)
		c.str("metadata.uid", fields["uid"], false)
		in.Labels = c.labels("metadata.labels", fields["labels"])
	}
	if spec := c.mapping("spec", object["spec"]); spec != nil {
		fields := c.fields("spec", spec, specFields, "spec")
		in.CIDR = c.str("spec.cidr", fields["cidr"], true)
		if kind := c.str("spec.kind", fields["kind"], true); kind != "" && kind != string(ipam.Public) {
			c.add("spec.kind", "must be %s or %s, got %s", ipam.Public, ipam.Private, word(kind))
		}
		in.Gateway = c.str("spec.gateway", fields["gateway"], false)
		in.Exclude = c.strings("spec.exclude", fields["exclude"])
		in.Zone = c.str("spec.zone", fields["zone"], false)
		in.DelegatedPrefixLength = c.integer("spec.delegatedPrefixLength", fields["delegatedPrefixLength"])
	}
	c.validate(ipam.ValidatePublicPool(in), c.errs[before:])
	return in, c.accept(before, KindPool+" /"+in.Name, "%s is also the name of document %d; name each pool once", in.Name)
}

// privatePool checks the document of a private pool: refused
// (privatePoolRefusal) unless a VPC could have made it.
func (c *checker) privatePool(root *yaml.Node) (in ipam.PrivatePoolInput, ok bool) {
	if !madeByVPC(root) {
		c.add("", privatePoolRefusal)
		return in, false
	}
	before := len(c.errs)
	object := c.fields("", root, objectFields, "an object")
	metadata := c.fields("metadata", object["metadata"], metadataFields, "metadata")
	in.Name = c.str("metadata.name", metadata["name"], true)
	in.Namespace = c.str("metadata.namespace", metadata["namespace"], true)
	c.str("metadata.uid", metadata["uid"], false)
	in.Labels = c.labels("metadata.labels", metadata["labels"])
	ref := c.fields("metadata.ownerRefs[0]", resolve(metadata["ownerRefs"].Content[0]), ownerRefFields, "an owner reference")
	in.VPCUID = c.str("metadata.ownerRefs[0].uid", ref["uid"], true)
	if spec := c.mapping("spec", object["spec"]); spec != nil {
		fields := c.fields("spec", spec, specFields, "spec")
		in.CIDR = c.str("spec.cidr", fields["cidr"], true)
	}
	c.validate(ipam.ValidatePrivatePool(in), c.errs[before:])
	return in, c.accept(before, KindPool+" "+in.Namespace+"/"+in.Name, "%s is also the name of document %d; name each pool once", in.Name)
}

// vpc checks the document of a VPC.
func (c *checker) vpc(root *yaml.Node) (in ipam.ApplyVPCInput, ok bool) {
	before := len(c.errs)
	object := c.fields("", root, vpcFields, "a VPC")
	if metadata := c.mapping("metadata", object["metadata"]); metadata != nil {
		fields := c.fields("metadata", metadata, vpcMetadataFields, "a VPC's metadata")
		in.Name = c.str("metadata.name", fields["name"], true)
		in.Namespace = c.str("metadata.namespace", fields["namespace"], true)
		in.UID = c.str("metadata.uid", fields["uid"], false)
	}
	if spec := c.mapping("spec", object["spec"]); spec != nil {
		fields := c.fields("spec", spec, vpcSpecFields, "a VPC's spec")
		in.CIDR = c.str("spec.cidr", fields["cidr"], true)
		in.Zone = c.str("spec.zone", fields["zone"], false)
		in.IPv6CIDR = c.str("spec.ipv6Cidr", fields["ipv6Cidr"], false)
		in.IPv6PrefixLength = c.integer("spec.ipv6PrefixLength", fields["ipv6PrefixLength"])
		in.IPv6Addressing = c.str("spec.ipv6Addressing", fields["ipv6Addressing"], false)
		in.Subnets = c.subnets("spec.subnets", fields["subnets"])
	}
	c.validate(ipam.ValidateVPC(in), c.errs[before:])
	if !c.accept(before, KindVPC+" "+in.Namespace+"/"+in.Name, "%s is also the name of document %d; name each VPC of a namespace once", in.Name) {
		return in, false
	}
	if in.UID == "" {
		return in, true
	}
	uid := strings.ToLower(in.UID)
	if other, seen := c.uids[uid]; seen {
		c.add("metadata.uid", "%s is also the uid of document %d; give each VPC its own", in.UID, other)
		return in, false
	}
	c.uids[uid] = c.doc
	return in, true
}

// accept reports whether the document has no mistake since before, and
// refuses it when key names an object of an earlier document, saying so
// with format and name.
func (c *checker) accept(before int, key, format, name string) bool {
	if len(c.errs) > before || c.full {
		return false
	}
	if other, seen := c.names[key]; seen {
		c.add("metadata.name", format, name, other)
		return false
	}
	c.names[key] = c.doc
	return true
}

// madeByVPC reports whether the private pool of root has the form of one
// a VPC made: in a namespace, named vpc-<name>, owned by one VPC as its
// controller, of kind private, without gateway, excludes or zone.
func madeByVPC(root *yaml.Node) bool {
	metadata, spec := lookup(root, "metadata"), lookup(root, "spec")
	name, refs := lookup(metadata, "name"), lookup(metadata, "ownerRefs")
	if !isString(lookup(metadata, "namespace")) || !isString(name) || !isPrivatePoolName(name.Value) ||
		refs == nil || refs.Kind != yaml.SequenceNode || len(refs.Content) != 1 {
		return false
	}
	ref := resolve(refs.Content[0])
	kind, controller := lookup(ref, "kind"), lookup(ref, "controller")
	if !isString(kind) || kind.Value != KindVPC || controller == nil || controller.Tag != "!!bool" || !strings.EqualFold(controller.Value, "true") {
		return false
	}
	if kind := lookup(spec, "kind"); !isString(kind) || kind.Value != string(ipam.Private) {
		return false
	}
	for _, field := range []string{"gateway", "exclude", "zone"} {
		if v := lookup(spec, field); !isNull(v) && !(v.Kind == yaml.ScalarNode && v.Value == "") && !(v.Kind == yaml.SequenceNode && len(v.Content) == 0) {
			return false
		}
	}
	return true
}

// isString reports whether n is a string that is not empty.
func isString(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value != ""
}

// isPrivatePoolName reports whether name is named as a VPC's private pool
// is (candidates.PrivatePoolName).
func isPrivatePoolName(name string) bool {
	_, ok := candidates.PrivatePoolVPC(name)
	return ok
}

// isPrivate reports whether the pool of root is a private one: of kind
// private, in a namespace or owned by something.
func isPrivate(root *yaml.Node) bool {
	metadata := lookup(root, "metadata")
	if ns := lookup(metadata, "namespace"); !isNull(ns) && !(ns.Kind == yaml.ScalarNode && ns.Value == "") {
		return true
	}
	if refs := lookup(metadata, "ownerRefs"); !isNull(refs) && !(refs.Kind == yaml.SequenceNode && len(refs.Content) == 0) {
		return true
	}
	kind := lookup(lookup(root, "spec"), "kind")
	return kind != nil && kind.Kind == yaml.ScalarNode && kind.Value == string(ipam.Private)
}

// validate adds the domain's mistakes err (ipam.Validate…), each under its
// field's path, but for the fields (and their parts) reported already.
func (c *checker) validate(err error, reported Errors) {
	if err == nil {
		return
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, err := range errs {
		var invalid *refusal.InvalidError
		if !errors.As(err, &invalid) {
			c.add("", "%v", err)
			continue
		}
		path := documentPath(invalid.Field)
		if !slices.ContainsFunc(reported, func(e *Error) bool { return within(path, e.Path) }) {
			c.add(path, "%s", invalid.Message)
		}
	}
}

// documentPath is the path in a document of a field of the domain's
// inputs: metadata.name, metadata.labels.<key>, spec.subnets[0].cidr…
func documentPath(field string) string {
	switch {
	case field == "name" || field == "namespace" || field == "uid" || field == "labels":
		return "metadata." + field
	case strings.HasPrefix(field, "labels."):
		return join("metadata.labels", strings.TrimPrefix(field, "labels."))
	}
	return "spec." + field
}

// within reports whether path is the field outer or a part of it.
func within(path, outer string) bool {
	rest, ok := strings.CutPrefix(path, outer)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// mapping returns n if it is a mapping; a missing n is required.
func (c *checker) mapping(path string, n *yaml.Node) *yaml.Node {
	switch {
	case isNull(n):
		c.add(path, "required")
	case n.Kind != yaml.MappingNode:
		c.add(path, "must be a mapping, got %s", describe(n))
	default:
		return n
	}
	return nil
}

// fields returns the value of each field of the mapping n, refusing
// unknown and repeated ones. what names the mapping in hints.
func (c *checker) fields(path string, n *yaml.Node, known []string, what string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := resolve(n.Content[i])
		if key.Kind != yaml.ScalarNode {
			c.add(path, "a field name must be a word, got %s on line %d", describe(key), key.Line)
			continue
		}
		p := join(path, key.Value)
		if !slices.Contains(known, key.Value) {
			c.add(p, "unknown field; the fields of %s are %s", what, strings.Join(known, ", "))
			continue
		}
		if _, twice := out[key.Value]; twice {
			c.add(p, "given twice; give it once")
			continue
		}
		out[key.Value] = resolve(n.Content[i+1])
	}
	return out
}

// str returns the string n holds, "" when n is missing, null or refused.
func (c *checker) str(path string, n *yaml.Node, required bool) string {
	switch {
	case isNull(n) || n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "":
		if required {
			c.add(path, "required")
		}
		return ""
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		return n.Value
	case n.Kind == yaml.ScalarNode:
		c.add(path, "must be a string; quote it: %s", strconv.Quote(shorten(n.Value)))
	default:
		c.add(path, "must be a string, got %s", describe(n))
	}
	return ""
}

// integer returns the whole number n holds, 0 when n is missing, null or
// refused.
func (c *checker) integer(path string, n *yaml.Node) int {
	if isNull(n) {
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!int" && err == nil:
		return v
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str" && err == nil:
		c.add(path, "must be a whole number; write it without quotes: %d", v)
	default:
		c.add(path, "must be a whole number such as 56, got %s", describe(n))
	}
	return 0
}

// labels returns the labels of the mapping n, nil when there is none.
func (c *checker) labels(path string, n *yaml.Node) map[string]string {
	if isNull(n) || n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		c.add(path, "must be a mapping of keys to values such as {pivirt.hu/tier: gold}, got %s", describe(n))
		return nil
	}
	out := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := resolve(n.Content[i])
		if key.Kind != yaml.ScalarNode {
			c.add(path, "a label key must be a word, got %s on line %d", describe(key), key.Line)
			continue
		}
		p := join(path, key.Value)
		if _, twice := out[key.Value]; twice {
			c.add(p, "given twice; give it once")
			continue
		}
		out[key.Value] = c.str(p, resolve(n.Content[i+1]), false)
	}
	return out
}

// subnets returns the subnets of the list n, nil when there is none; a
// subnet refused keeps its index, with what was read of it.
func (c *checker) subnets(path string, n *yaml.Node) []ipam.CreateSubnetInput {
	if isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		c.add(path, "must be a list of subnets such as [{name: web, cidr: 10.42.1.0/24}], got %s", describe(n))
		return nil
	}
	out := make([]ipam.CreateSubnetInput, 0, len(n.Content))
	seen := map[string]int{}
	for i, item := range n.Content {
		p := fmt.Sprintf("%s[%d]", path, i)
		var sub ipam.CreateSubnetInput
		if m := c.mapping(p, resolve(item)); m != nil {
			fields := c.fields(p, m, subnetFields, "a subnet")
			sub.Name = c.str(p+".name", fields["name"], true)
			sub.CIDR = c.str(p+".cidr", fields["cidr"], true)
			sub.Gateway = c.str(p+".gateway", fields["gateway"], false)
			sub.IPv6CIDR = c.str(p+".ipv6Cidr", fields["ipv6Cidr"], false)
			sub.IPv6PrefixLength = c.integer(p+".ipv6PrefixLength", fields["ipv6PrefixLength"])
		}
		if other, twice := seen[sub.Name]; twice && sub.Name != "" {
			c.add(p+".name", "%s is also the name of %s[%d]; name each subnet once", sub.Name, path, other)
		} else {
			seen[sub.Name] = i
		}
		out = append(out, sub)
	}
	return out
}

// strings returns the strings of the list n, nil when n is missing; an
// item refused is "", so that the others keep their index.
func (c *checker) strings(path string, n *yaml.Node) []string {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		c.add(path, "must be a list of addresses and ranges such as [203.0.113.2, 203.0.113.10-203.0.113.20], got %s", describe(n))
		return nil
	}
	if len(n.Content) > MaxExcludes {
		c.add(path, "%d entries, more than %d; write runs of addresses as ranges such as 203.0.113.10-203.0.113.20", len(n.Content), MaxExcludes)
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = resolve(item)
		p := fmt.Sprintf("%s[%d]", path, i)
		if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
			c.add(p, "must be a string, got %s", describe(item))
			out = append(out, "")
			continue
		}
		out = append(out, item.Value)
	}
	return out
}

// lookup returns the first value of key in the mapping n; nil when n is
// not a mapping or has no such key.
func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := resolve(n.Content[i]); k.Kind == yaml.ScalarNode && k.Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// isNull reports whether n is missing or null.
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe names what n is, for "got …".
func describe(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode:
		return word(n.Value)
	}
	return "an alias"
}

// plainWord is a value or a field name that reads well unquoted in a
// message.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:-]{1,64}$`)

// word quotes s for a message unless it reads well as it is.
func word(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return strconv.Quote(shorten(s))
}

// join appends the field key to path.
func join(path, key string) string {
	if path == "" {
		return word(key)
	}
	return path + "." + word(key)
}

// shorten cuts what the user wrote to a length fit for a message.
func shorten(s string) string {
	const limit = 64
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
