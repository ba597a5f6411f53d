#!/usr/bin/env bash
# scripts/vendor-htmx.sh - vendor htmx from the npm registry into static/js/.
#
# Usage: scripts/vendor-htmx.sh VERSION        e.g. scripts/vendor-htmx.sh 2.0.8
#
# Fetches the npm package htmx.org@VERSION with `npm pack` (an exact version,
# never a tag: npm's `latest` tag points at htmx 4.x), checks the tarball
# against the registry's dist.integrity, and writes:
#   static/js/htmx.min.js          package/dist/htmx.min.js from the tarball
#   static/js/htmx.min.js.sha384   its Subresource Integrity string,
#                                  "sha384-<base64>" (no trailing newline)
#   static/js/VENDORED.md          where it came from and how to update
# The project is written for htmx 2.x: another major version is refused unless
# HTMX_ALLOW_MAJOR=1 is set (and then the templates need reviewing).
# Needs: npm, tar, openssl.
set -euo pipefail

readonly PKG=htmx.org
readonly EXPECTED_MAJOR=2

die() {
	printf 'vendor-htmx: error: %s\n' "$*" >&2
	exit 1
}

[[ $# -eq 1 ]] || die "usage: $0 VERSION   (exact version, e.g. 2.0.8)"
version=$1
[[ $version =~ ^([0-9]+)\.[0-9]+\.[0-9]+$ ]] ||
	die "VERSION must be an exact x.y.z version, not '$version'"
if [[ ${BASH_REMATCH[1]} != "$EXPECTED_MAJOR" && ${HTMX_ALLOW_MAJOR:-} != 1 ]]; then
	die "htmx $version is not $EXPECTED_MAJOR.x; set HTMX_ALLOW_MAJOR=1 to vendor it anyway"
fi
for tool in npm tar openssl; do
	command -v "$tool" >/dev/null || die "$tool not found"
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=$root/static/js
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
integrity=$(npm view --no-update-notifier "$PKG@$version" dist.integrity)
[[ $integrity == sha512-* ]] || die "no dist.integrity for $PKG@$version: '$integrity'"

npm pack --silent --no-update-notifier "$PKG@$version" >/dev/null
tgz=$tmp/$PKG-$version.tgz
[[ -f $tgz ]] || die "npm pack did not produce $tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | openssl base64 -A)"
[[ $got == "$integrity" ]] || die "tarball integrity $got does not match registry $integrity"

tar -xzf "$tgz" package/package.json package/dist/htmx.min.js
grep -Eq "\"version\"[[:space:]]*:[[:space:]]*\"$version\"" package/package.json ||
	die "package/package.json in the tarball is not version $version"
[[ -s package/dist/htmx.min.js ]] || die "package/dist/htmx.min.js is missing or empty"
license=$(sed -n 's/^[[:space:]]*"license"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' package/package.json)

mkdir -p "$dest"
install -m 0644 package/dist/htmx.min.js "$dest/htmx.min.js"
sri="sha384-$(openssl dgst -sha384 -binary "$dest/htmx.min.js" | openssl base64 -A)"
printf '%s' "$sri" >"$dest/htmx.min.js.sha384"

cat >"$dest/VENDORED.md" <<EOF
# Vendored JavaScript

## htmx.min.js

| | |
| --- | --- |
| package | npm \`$PKG\` |
| version | $version (pinned exactly; npm's \`latest\` tag is another major version) |
| file | \`package/dist/htmx.min.js\` from the package tarball, unchanged |
| tarball integrity (\`npm view $PKG@$version dist.integrity\`) | \`$integrity\` |
| file's Subresource Integrity (\`htmx.min.js.sha384\`) | \`$sri\` |
| licence | ${license:-see the package}, per the package's package.json |

The tarball was fetched with \`npm pack $PKG@$version\` and its SHA-512 checked
against the registry's \`dist.integrity\` above before extracting.
\`htmx.min.js.sha384\` holds the value for an \`integrity\` attribute, without a
trailing newline; it is computed with
\`openssl dgst -sha384 -binary htmx.min.js | openssl base64 -A\`.

### Updating

Do not edit these files by hand. Run, from the repository root,

    scripts/vendor-htmx.sh NEW_VERSION     # e.g. scripts/vendor-htmx.sh 2.0.9

which rewrites \`htmx.min.js\`, \`htmx.min.js.sha384\` and this file. The script
refuses a major version other than $EXPECTED_MAJOR.x unless \`HTMX_ALLOW_MAJOR=1\`
is set. Anything that hard-codes the integrity string must pick up the new one.
EOF

printf 'vendored %s@%s into %s\n  %s\n' "$PKG" "$version" "${dest#"$root"/}" "$sri"
