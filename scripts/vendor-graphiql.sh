#!/usr/bin/env bash
# scripts/vendor-graphiql.sh - vendor GraphiQL and React from the npm registry
# into static/graphiql/, for the explorer GET /graphql opens in a browser.
#
# Usage: scripts/vendor-graphiql.sh
#
# Fetches, with `npm pack`, the exact versions below (GraphiQL 3.x is the last
# major version that ships a prebuilt bundle, graphiql.min.js, which needs no
# bundler: it reads React and ReactDOM from the page, and React 18 is the last
# major version that ships such bundles, umd/*.production.min.js). Checks each
# tarball against the registry's dist.integrity, and writes:
#   static/graphiql/graphiql.min.js           package/graphiql.min.js of graphiql
#   static/graphiql/graphiql.min.css          package/graphiql.min.css of graphiql
#   static/graphiql/react.production.min.js   package/umd/react.production.min.js
#   static/graphiql/react-dom.production.min.js  package/umd/react-dom.production.min.js
#   static/graphiql/<file>.sha384             each file's Subresource Integrity,
#                                             "sha384-<base64>" (no newline)
#   static/graphiql/VENDORED.md               where they came from
# The files are copied unchanged, their source map comments included (the
# maps are not vendored).
# Needs: npm, tar, openssl.
set -euo pipefail

readonly GRAPHIQL_VERSION=3.8.3
readonly REACT_VERSION=18.3.1

die() {
	printf 'vendor-graphiql: error: %s\n' "$*" >&2
	exit 1
}

for tool in npm tar openssl; do
	command -v "$tool" >/dev/null || die "$tool not found"
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=$root/static/graphiql
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# fetch PKG VERSION: the package's tarball, checked, unpacked into ./PKG/;
# prints the registry's integrity.
fetch() {
	local pkg=$1 version=$2 integrity tgz got
	integrity=$(npm view --no-update-notifier "$pkg@$version" dist.integrity)
	[[ $integrity == sha512-* ]] || die "no dist.integrity for $pkg@$version: '$integrity'"
	npm pack --silent --no-update-notifier "$pkg@$version" >/dev/null
	tgz=$tmp/$pkg-$version.tgz
	[[ -f $tgz ]] || die "npm pack did not produce $tgz"
	got="sha512-$(openssl dgst -sha512 -binary "$tgz" | openssl base64 -A)"
	[[ $got == "$integrity" ]] || die "$pkg tarball integrity $got does not match registry $integrity"
	mkdir -p "$pkg"
	tar -xzf "$tgz" -C "$pkg"
	grep -Eq "\"version\"[[:space:]]*:[[:space:]]*\"$version\"" "$pkg/package/package.json" ||
		die "$pkg/package/package.json in the tarball is not version $version"
	printf '%s' "$integrity"
}

graphiql_integrity=$(fetch graphiql "$GRAPHIQL_VERSION")
react_integrity=$(fetch react "$REACT_VERSION")
react_dom_integrity=$(fetch react-dom "$REACT_VERSION")

mkdir -p "$dest"
rm -f "$dest"/*
install -m 0644 graphiql/package/graphiql.min.js graphiql/package/graphiql.min.css "$dest/"
install -m 0644 react/package/umd/react.production.min.js "$dest/"
install -m 0644 react-dom/package/umd/react-dom.production.min.js "$dest/"
rows=""
for f in graphiql.min.js graphiql.min.css react.production.min.js react-dom.production.min.js; do
	[[ -s $dest/$f ]] || die "$f is missing or empty"
	sri="sha384-$(openssl dgst -sha384 -binary "$dest/$f" | openssl base64 -A)"
	printf '%s' "$sri" >"$dest/$f.sha384"
	rows+="| \`$f\` | \`$sri\` |"$'\n'
done

cat >"$dest/VENDORED.md" <<EOF
# Vendored GraphiQL

The explorer that \`GET /graphql\` opens in a browser: GraphiQL's prebuilt
bundle, which reads React and ReactDOM from the page, and React's.

| package | version | tarball integrity (\`npm view PKG@VERSION dist.integrity\`) | licence |
| --- | --- | --- | --- |
| npm \`graphiql\` | $GRAPHIQL_VERSION | \`$graphiql_integrity\` | MIT |
| npm \`react\` | $REACT_VERSION | \`$react_integrity\` | MIT |
| npm \`react-dom\` | $REACT_VERSION | \`$react_dom_integrity\` | MIT |

| file | Subresource Integrity (\`FILE.sha384\`) |
| --- | --- |
$rows
\`graphiql.min.js\` and \`graphiql.min.css\` are \`package/graphiql.min.js\` and
\`package/graphiql.min.css\` of graphiql's tarball; the React files are
\`package/umd/react.production.min.js\` and
\`package/umd/react-dom.production.min.js\` of theirs, all unchanged. Each
tarball was fetched with \`npm pack\` and its SHA-512 checked against the
registry's \`dist.integrity\` above before extracting. GraphiQL 3.x is the last
major version with a bundle that needs no bundler, React 18 the last with one.

\`static/js/graphiql.js\` starts GraphiQL on the page (no inline script: the
console's Content-Security-Policy allows none). The stylesheet carries its
fonts as \`data:\` URLs, which that policy refuses (fonts from the console's
origin only): the explorer shows in the browser's own fonts.

### Updating

Do not edit these files by hand: change the versions in
\`scripts/vendor-graphiql.sh\` and run it from the repository root. It rewrites
every file here; the page reads the integrity values from the \`.sha384\` files.
EOF

printf 'vendored graphiql@%s, react@%s and react-dom@%s into %s\n' "$GRAPHIQL_VERSION" "$REACT_VERSION" "$REACT_VERSION" "${dest#"$root"/}"
