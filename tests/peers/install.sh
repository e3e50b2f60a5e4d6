#!/usr/bin/env bash
# Install Toolscope's third-party MCP test peers (idempotent, quiet unless something fails).
#   python/.venv  : official PyPI `mcp` SDK, pinned in python/requirements.txt (runs python/server.py)
#   npm/node_modules : @modelcontextprotocol/server-everything and server-filesystem, pinned in
#                      npm/package-lock.json
#   ../conformance/node_modules : the MCP conformance suite, with a Node.js 22 of its own
# Needs: python3 >= 3.10 with the venv module (Debian system python: apt-get install python3-venv),
# node >= 20 and npm. Set PYTHON=/path/to/python to choose the interpreter.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PYTHON="${PYTHON:-python3}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

fail() {
    echo "install.sh: $1" >&2
    [ -s "$log" ] && cat "$log" >&2
    exit 1
}

hash_of() { sha256sum "$1" | cut -d' ' -f1; }

# --- Python peer -------------------------------------------------------------
venv="$here/python/.venv"
req="$here/python/requirements.txt"
stamp="$venv/.toolscope-requirements.sha256"

command -v "$PYTHON" >/dev/null 2>&1 || fail "$PYTHON not found (need Python >= 3.10)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || fail "$PYTHON is $("$PYTHON" -V 2>&1); the mcp package needs Python >= 3.10"

if [ -x "$venv/bin/python" ] && ! "$venv/bin/python" -c 'pass' >/dev/null 2>&1; then
    rm -rf "$venv"   # broken venv (e.g. its base interpreter went away)
fi
if [ ! -x "$venv/bin/python" ]; then
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv" >"$log" 2>&1 \
        || fail "'$PYTHON -m venv' failed (on Debian's system python: apt-get install python3-venv)"
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(hash_of "$req")" ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" >"$log" 2>&1 \
        || fail "pip install -r $req failed"
    "$venv/bin/python" -c 'from mcp.server.mcpserver import MCPServer' >"$log" 2>&1 \
        || fail "the mcp package installed but does not import"
    hash_of "$req" >"$stamp"
fi
mcp_version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))')"

# --- npm peer ----------------------------------------------------------------
npm_dir="$here/npm"
lock="$npm_dir/package-lock.json"
nstamp="$npm_dir/node_modules/.toolscope-lock.sha256"
entry="$npm_dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
fs_entry="$npm_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"

command -v node >/dev/null 2>&1 || fail "node not found (need Node.js >= 20)"
command -v npm >/dev/null 2>&1 || fail "npm not found"
if [ ! -f "$nstamp" ] || [ "$(cat "$nstamp")" != "$(hash_of "$lock")" ] || [ ! -f "$entry" ] || [ ! -f "$fs_entry" ]; then
    (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1 \
        || fail "npm ci in $npm_dir failed"
    hash_of "$lock" >"$nstamp"
fi
# --- the MCP conformance suite (run by tests/conformance/run.sh) ------------------
conf_dir="$here/../conformance"
clock="$conf_dir/package-lock.json"
cstamp="$conf_dir/node_modules/.toolscope-lock.sha256"
if [ ! -f "$cstamp" ] || [ "$(cat "$cstamp")" != "$(hash_of "$clock")" ]; then
    (cd "$conf_dir" && npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1 \
        || fail "npm ci in $conf_dir failed"
    hash_of "$clock" >"$cstamp"
fi

se_version="$(node -p 'require(process.argv[1]).version' \
    "$npm_dir/node_modules/@modelcontextprotocol/server-everything/package.json")"

echo "python peer ready: mcp $mcp_version in tests/peers/python/.venv (run: tests/peers/python/.venv/bin/python tests/peers/python/server.py)"
echo "npm peer ready: @modelcontextprotocol/server-everything $se_version (run: node tests/peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js [stdio|streamableHttp])"
echo "conformance suite ready: tests/conformance/run.sh runs its client scenarios against the CLI"
echo "npm peer ready: @modelcontextprotocol/server-filesystem (run: node tests/peers/npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js DIR)"
