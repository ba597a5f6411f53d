// Package ipam is the domain of IP address management: public and private
// pools, VPCs and their subnets, VM interfaces, node addresses and floating
// IPs, and the Allocate and Release every one of them comes down to.
//
// Every operation takes the auth.Actor it runs for and enforces tenancy
// itself, so that the console, the GraphQL API and the command line inherit
// the same rules: another tenant's object answers exactly as one that does
// not exist.
//
// A claim takes the lowest free candidate (internal/candidates) and inserts
// its allocation; the database's unique index on the allocation's name is
// the arbiter. See docs/allocation.md for why no address is ever handed out
// twice.
package ipam
