#!/usr/bin/env bash
# scripts/check-generated.sh - fail when the committed templ output is stale.
#
# Generates views/ afresh in a scratch copy and compares it with the
# *_templ.go files in the tree, so that a .templ edited without running
# `make generate` fails `make test` (and CI) with a message saying so.
set -euo pipefail

cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cp -R views "$scratch/views"
find "$scratch/views" -name '*_templ.go' -delete
go tool templ generate -path "$scratch/views" >/dev/null 2>&1 || {
	go tool templ generate -path "$scratch/views"
	exit 1
}

stale=0
while IFS= read -r -d '' generated; do
	rel=${generated#"$scratch"/}
	if ! cmp -s "$generated" "$rel"; then
		echo "check-generated: $rel is stale or missing" >&2
		stale=1
	fi
done < <(find "$scratch/views" -name '*_templ.go' -print0)
while IFS= read -r -d '' committed; do
	if [[ ! -e "$scratch/$committed" ]]; then
		echo "check-generated: $committed has no .templ source any more" >&2
		stale=1
	fi
done < <(find views -name '*_templ.go' -print0)

if ((stale)); then
	echo "check-generated: run 'make generate' and commit the result" >&2
	exit 1
fi
