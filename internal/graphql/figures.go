package graphql

import (
	"context"
	"math"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/usage"
)

// The figures of a usage (sizes, used and free counts) are exact in the
// domain at any size, 128 bits for IPv6 (candidates.Count). GraphQL's Int
// carries 32 bits: each figure has an Int field, which answers it as it
// always has when it fits (every IPv4 figure does), and a BigInt field
// (sizeExact…), which answers it exactly at any size, as a decimal string.

// intFigure answers the Int field field of a figure n: n when it fits
// GraphQL's Int; past 2^31 − 1 an error that gives n and names the BigInt
// field exact to read instead, rather than a wrong number.
func intFigure(field, exact string, n candidates.Count) (any, error) {
	if v, ok := n.Uint64(); ok && v <= math.MaxInt32 {
		return int(v), nil
	}
	return nil, invalidArgument("%s is %s, more than GraphQL's Int holds (2^31 − 1): select %s, a BigInt, instead", field, n, exact)
}

// figureFields sets the resolvers of the figures of typ whose source is a
// T, each read by its function: the Int field name (intFigure) and the
// BigInt field nameExact, a decimal string.
func figureFields[T any](b *engine.Builder, typ string, fields map[string]func(T) candidates.Count) {
	for name, read := range fields {
		b.Resolve(typ, name, func(_ context.Context, p engine.Params) (any, error) {
			return intFigure(name, name+"Exact", read(p.Source.(T)))
		})
		b.Resolve(typ, name+"Exact", func(_ context.Context, p engine.Params) (any, error) {
			return read(p.Source.(T)).String(), nil
		})
	}
}

// unit is what the figures f count: "addresses" unless they say
// otherwise (usage.Prefixes).
func unit(f usage.Figures) string {
	if f.Unit == "" {
		return "addresses"
	}
	return f.Unit
}
