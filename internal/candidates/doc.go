// Package candidates decides which addresses of a pool, and which numbers
// of a number pool, can be handed out.
//
// It is the one enumerator of PiVirt IPAM: the server's allocator, the
// GraphQL preview and the browser preview (compiled to WebAssembly) all call
// it, so they agree on every address and number. It does no I/O and imports only the
// standard library.
//
// The candidates of a pool are every host address of its prefix in
// ascending order, except the network and broadcast addresses, the gateway
// and the excluded addresses. A /31 has two host addresses and a /32 one
// (RFC 3021): neither has a network or broadcast address to skip. A request
// may narrow the candidates to a prefix inside the pool (a subnet, whose own
// network and broadcast addresses are skipped too) and reserve more
// addresses (the subnet's gateway).
//
// A pool may be IPv6 instead: its candidates are its addresses in
// ascending order except the subnet-router anycast address (its first, RFC
// 4291 §2.6.1, and the first of the request's subnet), the gateway and the
// excludes; IPv6 has no broadcast address, and a /127 has two candidates
// and a /128 one (RFC 6164). Counts of addresses and prefixes are exact at
// 128 bits (Count). A subnet's interfaces may take stable opaque addresses
// instead of the lowest free one (OpaqueAddress, Space.NextOpaque).
//
// Sets of addresses are kept as sorted ranges, each family apart, so that a
// fragmented /16 costs kilobytes, and iterating candidates allocates
// nothing per address.
//
// A number pool (VLAN IDs and the like) is a list of ranges of whole
// numbers with weights (NumberPool). Its numbers are handed out range by
// range, by descending weight and, between ranges of one weight, in the
// order given; within a range, the lowest number not taken first. The
// numbers taken in one division of the pool are kept as sorted runs too
// (NumberSet, NumberSetBuilder), so that choosing the next number costs a
// binary search per range, whatever the size of the pool.
package candidates
