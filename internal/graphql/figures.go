package graphql

import (
	"context"
	"math"
	"strconv"

	"pivirt.hu/ipam/internal/graphql/engine"
)

// The figures of a usage (sizes, used and free counts) are exact in the
// domain at any size, 128 bits for IPv6. GraphQL's Int carries 32 bits:
// each figure has an Int field, which answers it as it always has when it
// fits (every IPv4 figure does), and a BigInt field (sizeExact…), which
// answers it exactly at any size, as a decimal string.

// intFigure answers the Int field field of a figure n: n when it fits
// GraphQL's Int; past 2^31 − 1 an error that gives n and names the BigInt
// field exact to read instead, rather than a wrong number.
func intFigure[N int | int64](field, exact string, n N) (any, error) {
	if int64(n) > math.MaxInt32 {
		return nil, invalidArgument("%s is %d, more than GraphQL's Int holds (2^31 − 1): select %s, a BigInt, instead", field, n, exact)
	}
	return n, nil
}

// bigFigure answers a BigInt field of a figure: a decimal string.
func bigFigure[N int | int64](n N) string { return strconv.FormatInt(int64(n), 10) }

// figureFields sets the resolvers of the figures of typ whose source is a T,
// each read by its function: the Int field name (intFigure) and the
// BigInt field nameExact.
func figureFields[T any, N int | int64](b *engine.Builder, typ string, fields map[string]func(T) N) {
	for name, read := range fields {
		b.Resolve(typ, name, func(_ context.Context, p engine.Params) (any, error) {
			return intFigure(name, name+"Exact", read(p.Source.(T)))
		})
		b.Resolve(typ, name+"Exact", func(_ context.Context, p engine.Params) (any, error) {
			return bigFigure(read(p.Source.(T))), nil
		})
	}
}
