// Package candidates decides which addresses of a pool can be handed out.
//
// It is the one enumerator of PiVirt IPAM: the server's allocator, the
// GraphQL preview and the browser preview (compiled to WebAssembly) all call
// it, so they agree on every address. It does no I/O and imports only the
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
// Sets of addresses are kept as sorted ranges, so that a fragmented /16
// costs kilobytes, and iterating candidates allocates nothing per address.
package candidates
