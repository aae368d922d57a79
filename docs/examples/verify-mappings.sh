#!/usr/bin/env bash
# Verify mappings one at a time, for CI: every MAPPING given, else every mappings/*.yaml.
#
#   docs/examples/verify-mappings.sh [--read-only] [MAPPING...]
#
# Reports go to $REPORTS (default reports/): <name>.junit.xml, <name>.json and
# <name>.corrected.yaml per mapping. Exit 0 when every mapping is verified, else the
# highest exit of `a2map verify`: 1 when one is refused, 2 when one cannot be verified
# (it does not load, a variable is unset, the upstream is unreachable).
set -uo pipefail

reports=${REPORTS:-reports}
options=()
if [[ ${1:-} == --read-only ]]; then
    options+=(--read-only)
    shift
fi
mappings=("$@")
if ((${#mappings[@]} == 0)); then
    shopt -s nullglob
    mappings=(mappings/*.yaml)
fi
if ((${#mappings[@]} == 0)); then
    echo "verify-mappings: no mapping given and none in mappings/" >&2
    exit 2
fi

escape() {
    local text=${1//&/&amp;}
    text=${text//</&lt;}
    text=${text//>/&gt;}
    printf '%s' "${text//\"/&quot;}"
}

# A run that ends before any claim writes no JUnit; the CI's test view must still show it.
error_junit() {
    local name=$1 mapping=$2 code=$3 log=$4
    cat >"$reports/$name.junit.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="a2map verify">
  <testsuite name="a2map verify $(escape "$name")" tests="1" failures="0" errors="1" skipped="0">
    <testcase classname="$(escape "$name").mapping" name="$(escape "$mapping") [verify]">
      <error message="a2map verify exited $code before proving any claim">$(escape "$(tail -n 20 "$log")")</error>
    </testcase>
  </testsuite>
</testsuites>
XML
}

mkdir -p "$reports"
status=0
for mapping in "${mappings[@]}"; do
    name=$(basename "$mapping" .yaml)
    rm -f "$reports/$name".{junit.xml,json,corrected.yaml,log}
    a2map verify "$mapping" "${options[@]}" \
        --junit "$reports/$name.junit.xml" \
        --json "$reports/$name.json" \
        --write-corrected "$reports/$name.corrected.yaml" 2>&1 | tee "$reports/$name.log"
    code=${PIPESTATUS[0]}
    if [[ ! -s $reports/$name.junit.xml ]]; then
        error_junit "$name" "$mapping" "$code" "$reports/$name.log"
    fi
    echo "verify-mappings: $mapping: exit $code" >&2
    ((code > status)) && status=$code
done
exit "$status"
