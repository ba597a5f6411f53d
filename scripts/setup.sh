#!/usr/bin/env bash
# scripts/setup.sh - install what PiVirt IPAM needs to run and test, if missing.
#
# The one setup script that `make run` and `make test` call. It checks first
# and installs only what lacks, so when everything is present it prints nothing
# and returns in a few milliseconds (no apt, npm or node is started then).
#
# What it makes sure of:
#   * Debian packages: postgresql-15 (/usr/lib/postgresql/15/bin/postgres),
#     chromium (/usr/bin/chromium), pgbouncer (/usr/sbin/pgbouncer) and
#     haproxy (/usr/sbin/haproxy), which the tests and the bench start
#     themselves (a connection pooler, a proxy that follows a failover),
#     prometheus for its promtool (/usr/bin/promtool), which checks the
#     alerting rules of docs/monitoring, and
#     nodejs / npm only when `node` / `npm` are not on PATH. Installed with apt-get --no-install-recommends; apt-get
#     update runs only when something is to be installed. Uses sudo only when
#     not root. After installing PostgreSQL, any Debian-managed cluster that
#     the package created and started is stopped and set to start "manual",
#     because the project starts its own server.
#   * The Playwright driver for playwright-go v0.5200.1: npm package
#     playwright-core@1.52.0 installed into
#       $PIVIRT_CACHE/playwright-1.52.0/
#     and the driver folder playwright-go reads via PLAYWRIGHT_DRIVER_PATH:
#       $PIVIRT_CACHE/playwright-driver-1.52.0/package -> .../node_modules/playwright-core
#       $PIVIRT_CACHE/playwright-driver-1.52.0/node    -> system node
#     Browsers are never downloaded (no `playwright install`): tests use the
#     Debian chromium at CHROMIUM_PATH.
#   * graphql-js for the GraphQL tests that run node: npm package
#     graphql@16.15.0 installed into
#       $PIVIRT_CACHE/graphql-16.15.0/node_modules/graphql
#     (GRAPHQL_JS_PATH): its getIntrospectionQuery wrote
#     internal/graphql/testdata/introspection.graphql, and its
#     buildClientSchema checks the API's answer to it.
#   * axe-core for the end-to-end tests' accessibility checks: npm package
#     axe-core@4.14.1 installed into
#       $PIVIRT_CACHE/axe-core-4.14.1/node_modules/axe-core
#     (AXE_CORE_PATH): e2e injects its axe.min.js into every console page
#     and fails on a serious or critical violation.
#   Go tools need nothing here: they are go.mod tools run with `go tool`.
#
# Usage: scripts/setup.sh [--check | --print-env | --make-env | --help]
#   (no flag)    install what is missing; silent when everything is present.
#   --check      install nothing; list what is missing on stderr and exit 1
#                if anything is, else exit 0 silently.
#   --print-env  set up as with no flag, then print shell lines on stdout:
#                  export PLAYWRIGHT_DRIVER_PATH=...
#                  export CHROMIUM_PATH=/usr/bin/chromium
#                  export GRAPHQL_JS_PATH=...
#                  export AXE_CORE_PATH=...
#                (for a shell: `. <(scripts/setup.sh --print-env)`).
#   --make-env   set up as with no flag, then print the same as Make lines:
#                  export PLAYWRIGHT_DRIVER_PATH := ...
#                  export CHROMIUM_PATH := /usr/bin/chromium
#                  export GRAPHQL_JS_PATH := ...
#                  export AXE_CORE_PATH := ...
#                for a Makefile to include, e.g.
#                  .cache/env.mk: scripts/setup.sh
#                  	@mkdir -p $(@D) && scripts/setup.sh --make-env > $@.tmp && mv $@.tmp $@
#                  -include .cache/env.mk
#                  setup: ; @scripts/setup.sh      # run and test depend on it
#   -h, --help   show this header.
# Progress messages of installs go to stderr, so stdout holds only the env lines.
#
# Environment:
#   PIVIRT_CACHE  cache folder (default: $HOME/.cache/pivirt-ipam)
set -euo pipefail

readonly PLAYWRIGHT_VERSION=1.52.0 # must match playwright-go v0.5200.1 in go.mod
readonly GRAPHQL_JS_VERSION=16.15.0
readonly AXE_CORE_VERSION=4.14.1
readonly PG_MAJOR=15
readonly PG_BINDIR=/usr/lib/postgresql/${PG_MAJOR}/bin
readonly CHROMIUM_PATH=/usr/bin/chromium

home=${HOME:-~}
CACHE=${PIVIRT_CACHE:-$home/.cache/pivirt-ipam}
PW_PREFIX=$CACHE/playwright-$PLAYWRIGHT_VERSION
PW_PKG=$PW_PREFIX/node_modules/playwright-core
DRIVER_DIR=$CACHE/playwright-driver-$PLAYWRIGHT_VERSION
GRAPHQL_JS_PREFIX=$CACHE/graphql-$GRAPHQL_JS_VERSION
GRAPHQL_JS_PKG=$GRAPHQL_JS_PREFIX/node_modules/graphql
AXE_CORE_PREFIX=$CACHE/axe-core-$AXE_CORE_VERSION
AXE_CORE_PKG=$AXE_CORE_PREFIX/node_modules/axe-core

log() { printf 'setup: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

usage() {
	sed -n '2,/^set -euo pipefail/{/^#/{s/^# \{0,1\}//;p;};}' "$0"
}

mode=install
case "${1:-}" in
'') ;;
--check) mode=check ;;
--print-env) mode=print-env ;;
--make-env) mode=make-env ;;
-h | --help)
	usage
	exit 0
	;;
*)
	usage >&2
	die "unknown argument: $1"
	;;
esac
[[ $# -le 1 ]] || die "one flag at most"

# ---------------------------------------------------------------- checks ----
# All of these are shell builtins or file tests: the all-present path must not
# start apt, npm or node.

# has_version FILE [VERSION]: FILE is a package.json of version VERSION
# (default $PLAYWRIGHT_VERSION).
has_version() {
	local line want=${2:-$PLAYWRIGHT_VERSION}
	[[ -f $1 ]] || return 1
	while IFS= read -r line; do
		if [[ $line =~ ^[[:space:]]*\"version\"[[:space:]]*:[[:space:]]*\"([^\"]*)\" ]]; then
			[[ ${BASH_REMATCH[1]} == "$want" ]]
			return
		fi
	done <"$1"
	return 1
}

# missing_debs: print the Debian packages that need installing, one a line.
missing_debs() {
	[[ -x $PG_BINDIR/postgres && -x $PG_BINDIR/initdb ]] || echo "postgresql-$PG_MAJOR"
	[[ -x $CHROMIUM_PATH ]] || echo chromium
	[[ -x /usr/sbin/pgbouncer ]] || echo pgbouncer
	[[ -x /usr/sbin/haproxy ]] || echo haproxy
	[[ -x /usr/bin/promtool ]] || echo prometheus
	command -v node >/dev/null || echo nodejs
	command -v npm >/dev/null || echo npm
}

# link_points_to LINK TARGET
link_points_to() {
	[[ -L $1 ]] || return 1
	local t
	t=$(readlink -- "$1") || return 1
	[[ $t == "$2" ]]
}

driver_ok() {
	local node
	node=$(command -v node) || return 1
	has_version "$PW_PKG/package.json" &&
		[[ -f $PW_PKG/cli.js ]] &&
		link_points_to "$DRIVER_DIR/package" "$PW_PKG" &&
		link_points_to "$DRIVER_DIR/node" "$node" &&
		has_version "$DRIVER_DIR/package/package.json" &&
		[[ -x $DRIVER_DIR/node ]]
}

graphql_js_ok() {
	has_version "$GRAPHQL_JS_PKG/package.json" "$GRAPHQL_JS_VERSION" && [[ -f $GRAPHQL_JS_PKG/index.js ]]
}

axe_core_ok() {
	has_version "$AXE_CORE_PKG/package.json" "$AXE_CORE_VERSION" && [[ -f $AXE_CORE_PKG/axe.min.js ]]
}

# -------------------------------------------------------------- installs ----

as_root() {
	if [[ $EUID -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root to run: $* (not root and no sudo)"
	fi
}

apt_install() {
	log "installing Debian packages: $*"
	local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=300)
	as_root "${apt[@]}" update >&2
	as_root "${apt[@]}" install -y --no-install-recommends "$@" >&2
}

# Debian's postgresql packages create a cluster "main" and may start it. The
# project runs its own server, so stop every running Debian-managed cluster of
# our major version and keep it from starting at boot.
quiet_debian_clusters() {
	command -v pg_lsclusters >/dev/null || return 0
	local ver name _port status _rest
	while read -r ver name _port status _rest; do
		[[ $ver == "$PG_MAJOR" ]] || continue
		if [[ $status == online* ]]; then
			log "stopping Debian-managed PostgreSQL cluster $ver/$name"
			as_root pg_ctlcluster "$ver" "$name" stop >&2 || true
		fi
		if [[ -f /etc/postgresql/$ver/$name/start.conf ]]; then
			echo manual | as_root tee "/etc/postgresql/$ver/$name/start.conf" >/dev/null
		fi
	done < <(pg_lsclusters --no-header 2>/dev/null)
}

# Debian's pgbouncer, haproxy and prometheus packages run a service of their
# own; the tests and the bench start theirs on free ports (and use only
# prometheus's promtool), so stop and disable those.
quiet_debian_services() {
	command -v systemctl >/dev/null && [[ -d /run/systemd/system ]] || return 0
	local service
	for service in "$@"; do
		if systemctl is-active --quiet "$service"; then
			log "stopping the Debian service $service (the tests start their own)"
			as_root systemctl stop "$service" >&2 || true
		fi
		as_root systemctl disable --quiet "$service" >&2 2>/dev/null || true
	done
}

install_driver() {
	local node
	node=$(command -v node) || die "node not found after installing nodejs"
	mkdir -p "$CACHE"
	# Serialise concurrent runs (make run + make test) on the slow path.
	exec 9>"$CACHE/.setup.lock"
	command -v flock >/dev/null && flock 9

	if ! has_version "$PW_PKG/package.json" || [[ ! -f $PW_PKG/cli.js ]]; then
		log "installing npm playwright-core@$PLAYWRIGHT_VERSION into $PW_PREFIX"
		rm -rf "$PW_PREFIX"
		mkdir -p "$PW_PREFIX"
		PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund \
			--no-update-notifier --save-exact --ignore-scripts \
			--prefix "$PW_PREFIX" "playwright-core@$PLAYWRIGHT_VERSION" >&2
		has_version "$PW_PKG/package.json" ||
			die "npm did not install playwright-core $PLAYWRIGHT_VERSION in $PW_PKG"
	fi

	mkdir -p "$DRIVER_DIR"
	ln -sfn "$PW_PKG" "$DRIVER_DIR/package"
	ln -sfn "$node" "$DRIVER_DIR/node"
	has_version "$DRIVER_DIR/package/package.json" ||
		die "$DRIVER_DIR/package/package.json is not version $PLAYWRIGHT_VERSION"
	local out
	out=$("$DRIVER_DIR/node" "$DRIVER_DIR/package/cli.js" --version) ||
		die "the driver in $DRIVER_DIR does not run"
	[[ $out == *"$PLAYWRIGHT_VERSION"* ]] ||
		die "the driver in $DRIVER_DIR reports '$out', not $PLAYWRIGHT_VERSION"
	log "Playwright driver ready: $DRIVER_DIR ($out)"
}

install_graphql_js() {
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.setup.lock"
	command -v flock >/dev/null && flock 9
	graphql_js_ok && return 0
	log "installing npm graphql@$GRAPHQL_JS_VERSION into $GRAPHQL_JS_PREFIX"
	rm -rf "$GRAPHQL_JS_PREFIX"
	mkdir -p "$GRAPHQL_JS_PREFIX"
	npm install --no-audit --no-fund --no-update-notifier --save-exact --ignore-scripts \
		--prefix "$GRAPHQL_JS_PREFIX" "graphql@$GRAPHQL_JS_VERSION" >&2
	graphql_js_ok || die "npm did not install graphql $GRAPHQL_JS_VERSION in $GRAPHQL_JS_PKG"
}

install_axe_core() {
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.setup.lock"
	command -v flock >/dev/null && flock 9
	axe_core_ok && return 0
	log "installing npm axe-core@$AXE_CORE_VERSION into $AXE_CORE_PREFIX"
	rm -rf "$AXE_CORE_PREFIX"
	mkdir -p "$AXE_CORE_PREFIX"
	npm install --no-audit --no-fund --no-update-notifier --save-exact --ignore-scripts \
		--prefix "$AXE_CORE_PREFIX" "axe-core@$AXE_CORE_VERSION" >&2
	axe_core_ok || die "npm did not install axe-core $AXE_CORE_VERSION in $AXE_CORE_PKG"
}

# ------------------------------------------------------------------ main ----

mapfile -t debs < <(missing_debs)

if [[ $mode == check ]]; then
	rc=0
	for d in "${debs[@]}"; do
		log "missing Debian package: $d"
		rc=1
	done
	if ! driver_ok; then
		log "missing Playwright driver $PLAYWRIGHT_VERSION in $DRIVER_DIR"
		rc=1
	fi
	if ! graphql_js_ok; then
		log "missing graphql-js $GRAPHQL_JS_VERSION in $GRAPHQL_JS_PKG"
		rc=1
	fi
	if ! axe_core_ok; then
		log "missing axe-core $AXE_CORE_VERSION in $AXE_CORE_PKG"
		rc=1
	fi
	exit "$rc"
fi

if [[ ${#debs[@]} -gt 0 ]]; then
	apt_install "${debs[@]}"
	if [[ " ${debs[*]} " == *" postgresql-$PG_MAJOR "* ]]; then
		quiet_debian_clusters
	fi
	quiet_debian_services pgbouncer haproxy prometheus prometheus-node-exporter
	mapfile -t debs < <(missing_debs)
	[[ ${#debs[@]} -eq 0 ]] || die "still missing after apt-get install: ${debs[*]}"
fi

driver_ok || install_driver
graphql_js_ok || install_graphql_js
axe_core_ok || install_axe_core

case $mode in
print-env)
	printf 'export PLAYWRIGHT_DRIVER_PATH=%q\n' "$DRIVER_DIR"
	printf 'export CHROMIUM_PATH=%q\n' "$CHROMIUM_PATH"
	printf 'export GRAPHQL_JS_PATH=%q\n' "$GRAPHQL_JS_PKG"
	printf 'export AXE_CORE_PATH=%q\n' "$AXE_CORE_PKG"
	;;
make-env)
	printf 'export PLAYWRIGHT_DRIVER_PATH := %s\n' "$DRIVER_DIR"
	printf 'export CHROMIUM_PATH := %s\n' "$CHROMIUM_PATH"
	printf 'export GRAPHQL_JS_PATH := %s\n' "$GRAPHQL_JS_PKG"
	printf 'export AXE_CORE_PATH := %s\n' "$AXE_CORE_PKG"
	;;
esac
