#!/usr/bin/env bash
# Runs the MCP conformance suite's client scenarios (all but the extensions, or those named)
# against Toolscope's command line, and prints one line per scenario, then the tally.
#   tests/conformance/run.sh [SCENARIO ...]
# Needs Node.js >= 22 (the suite uses fs.globSync) and network access to the npm registry
# the first time; the suite is installed in tests/conformance/node_modules. TOOLSCOPE names the
# binary (default: target/debug/toolscope, built if missing).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export TOOLSCOPE="${TOOLSCOPE:-$root/target/debug/toolscope}"
[ -x "$TOOLSCOPE" ] || (cd "$root" && cargo build --quiet --bin toolscope) || exit 1
if [ ! -x "$here/node_modules/.bin/conformance" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || exit 1
fi
suite="$here/node_modules/.bin/conformance"
if [ "$#" -gt 0 ]; then
    scenarios=("$@")
else
    mapfile -t scenarios < <("$suite" list --client | sed -n 's/^  - \([^ ]*\) \[\(.*\)\]$/\1 \2/p' \
        | grep -v ' extension$' | cut -d' ' -f1)
fi
passed=0
failed=()
for scenario in "${scenarios[@]}"; do
    log="$(mktemp)"
    if timeout 180 "$suite" client --command "$here/client.sh" --scenario "$scenario" \
        --timeout 60000 >"$log" 2>&1 && grep -q 'OVERALL: PASSED' "$log"; then
        passed=$((passed + 1))
        echo "pass  $scenario"
    else
        failed+=("$scenario")
        echo "FAIL  $scenario"
        grep -E 'FAILURE|Error|error' "$log" | sed 's/\x1b\[[0-9;]*m//g' | head -5 | sed 's/^/      /'
    fi
    rm -f "$log"
done
echo "$passed of ${#scenarios[@]} client scenarios pass"
[ "${#failed[@]}" -eq 0 ]
