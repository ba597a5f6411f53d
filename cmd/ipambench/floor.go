package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// The floor is the cheapest durable claim imaginable: one single-row
// INSERT, committed on its own, into a table with the allocation table's
// columns, defaults, checks and indexes (but no foreign key, no audit
// entry, no search for a free address), through the same driver and the
// same connection pool as the product.
const floorTable = `CREATE TABLE IF NOT EXISTS floor_allocations (LIKE allocations INCLUDING ALL)`

const floorInsert = `INSERT INTO floor_allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`

const floorPoolUID = "00000000-0000-4000-8000-000000000001"

// floorSeq numbers the floor's rows.
var floorSeq atomic.Int64

// The floor's rows take the addresses after floorV4 (the IPv4 claims'
// floor) or after floorV6 (the IPv6 claims'), each the next one.
var (
	floorV4 = netip.MustParseAddr("10.0.0.0")
	floorV6 = netip.MustParseAddr("fd00:f100::")
)

// floorOp returns one insert of the floor, timed: the next address after
// base, of its family.
func floorOp(ctx context.Context, db *store.DB, base netip.Addr) (func() (time.Duration, error), error) {
	if _, err := db.ExecContext(ctx, floorTable); err != nil {
		return nil, err
	}
	return func() (time.Duration, error) {
		i := floorSeq.Add(1)
		a := offsetAddr(base, int(i))
		name := fmt.Sprintf("floor-%d", i)
		start := time.Now()
		_, err := db.ExecContext(ctx, floorInsert, "bench/floor", name, floorPoolUID, a.String(),
			"VirtualMachine", name, name+"/0", "bench/floor", nil, "bench")
		return time.Since(start), err
	}, nil
}

// offsetAddr returns the address offset after base, of base's family.
func offsetAddr(base netip.Addr, offset int) netip.Addr {
	if base.Is4() {
		b := base.As4()
		v := binary.BigEndian.Uint32(b[:]) + uint32(offset)
		binary.BigEndian.PutUint32(b[:], v)
		return netip.AddrFrom4(b)
	}
	b := base.As16()
	lo, carry := bits.Add64(binary.BigEndian.Uint64(b[8:]), uint64(offset), 0)
	binary.BigEndian.PutUint64(b[:8], binary.BigEndian.Uint64(b[:8])+carry)
	binary.BigEndian.PutUint64(b[8:], lo)
	return netip.AddrFrom16(b)
}

// floor measures n inserts of IPv4 addresses by clients concurrent
// clients.
func floor(ctx context.Context, db *store.DB, n, clients int) (run, error) {
	op, err := floorOp(ctx, db, floorV4)
	if err != nil {
		return run{}, err
	}
	return concurrently(n, clients, op)
}

// alternate runs n operations of a and n of b by clients concurrent
// clients, in slices that alternate (a's first), so that both see the
// machine in the same state: a burst of load elsewhere slows both alike.
// With one client and n slices, single operations alternate.
func alternate(n, clients, slices int, a, b func() (time.Duration, error)) (ra, rb run, err error) {
	runs, err := alternateClients(n, clients, slices, anyClient(a), anyClient(b))
	return runs[0], runs[1], err
}

// alternateClients is alternate for any number of operations, each told
// which client runs it; it returns one run per operation, in their order.
func alternateClients(n, clients, slices int, ops ...func(client int) (time.Duration, error)) ([]run, error) {
	runs := make([]run, len(ops))
	for k := range slices {
		m := n/slices + min(1, max(0, n%slices-k))
		for i, op := range ops {
			r, err := byClient(m, clients, op)
			if err != nil {
				return runs, err
			}
			runs[i].lat = append(runs[i].lat, r.lat...)
			runs[i].elapsed += r.elapsed
			runs[i].ops += r.ops
		}
	}
	return runs, nil
}

// anyClient is op for a client that need not know which it is.
func anyClient(op func() (time.Duration, error)) func(int) (time.Duration, error) {
	return func(int) (time.Duration, error) { return op() }
}

// concurrently runs op n times from clients goroutines and collects the
// latencies; the first error stops the run.
func concurrently(n, clients int, op func() (time.Duration, error)) (run, error) {
	return byClient(n, clients, anyClient(op))
}

// byClient is concurrently with op told which client (0 to clients-1)
// runs it, so that each client can keep to its own division.
func byClient(n, clients int, op func(client int) (time.Duration, error)) (run, error) {
	var next atomic.Int64
	lat := make([]time.Duration, n)
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				d, err := op(c)
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					next.Store(int64(n))
					return
				}
				lat[i] = d
			}
		})
	}
	wg.Wait()
	return run{lat: lat, elapsed: time.Since(start), ops: n}, firstErr
}
