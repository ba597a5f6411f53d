// Package numbers is the domain of number pools (docs/numbers.md): pools that
// hand out the numbers of a Number attribute of a kind (VLAN IDs, ASNs),
// each from the lowest free number of its ranges, tried by descending
// weight, and, for a pool with an allocation scope, separately in each
// division of the pool (each combination of the values of its scope
// elements: a VLAN's site, its role).
//
// A pool is one row, the same on every branch, for operators only. What
// decides a claim is a unique index on (pool, division, number) of the
// numbers allocated from the pool: a claim is one INSERT of the lowest
// candidate this process's view holds free, and losing a race means trying
// the next candidate; no lock per pool or per division. Objects' values are
// recorded per branch as holdings (Record, in the transaction of every
// change of objects), so that a number any branch shows is taken on every
// branch, and the figures count every branch. docs/numbers.md gives the
// design and the proof that no two objects of a division get one number
// from the pool.
//
// The package speaks to the database only through internal/store, and to
// objects of kinds through internal/branch, whose Config takes Guard (with
// branch.Guards) and Record.
package numbers
