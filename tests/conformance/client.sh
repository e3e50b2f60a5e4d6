#!/usr/bin/env bash
# Toolscope's command line as the client of one scenario of the MCP conformance suite
# (@modelcontextprotocol/conformance). The suite runs this with the server's URL as the last
# argument and the scenario's name in MCP_CONFORMANCE_SCENARIO; see tests/conformance/run.sh.
# Each scenario gets fresh settings, history and secrets. The "browser" follows the sign-in
# page's redirects without a person, as the suite's authorization servers approve at once.
set -uo pipefail

url="${*: -1}"
toolscope="${TOOLSCOPE:-toolscope}"
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
export TOOLSCOPE_CONFIG_DIR="$state/config" TOOLSCOPE_DATA_DIR="$state/data" TOOLSCOPE_SECRETS=file
export BROWSER="curl -sf -L -o /dev/null %s"

context="${MCP_CONFORMANCE_CONTEXT:-}"
field() { # a string field of the scenario's context, or nothing
    python3 -c 'import json,sys; print(json.loads(sys.argv[1] or "{}").get(sys.argv[2], ""))' "$context" "$1"
}
auth=()
[ -n "$(field client_id)" ] && auth+=(--oauth-client-id "$(field client_id)")
[ -n "$(field client_secret)" ] && auth+=(--oauth-client-secret "$(field client_secret)")
# The extensions' scenarios hand over keys and tokens as a platform would: in files and
# variables (never on the command line).
case "${MCP_CONFORMANCE_SCENARIO:-}" in
    # The suite's stand-in for where a client publishes its metadata document (SEP-991).
    auth/basic-cimd) auth+=(--oauth-client-metadata-url https://conformance-test.local/client-metadata.json) ;;
    auth/client-credentials-jwt)
        field private_key_pem >"$state/client-key.pem"
        auth+=(--oauth-grant client-credentials --oauth-private-key "$state/client-key.pem") ;;
    auth/client-credentials-*) auth+=(--oauth-grant client-credentials) ;;
    auth/enterprise-managed-authorization)
        field idp_id_token >"$state/id-token"
        auth+=(--oauth-grant enterprise --oauth-idp-issuer "$(field idp_issuer)"
            --oauth-idp-token-url "$(field idp_token_endpoint)"
            --oauth-idp-client-id "$(field idp_client_id)" --oauth-id-token-file "$state/id-token") ;;
    auth/wif-jwt-bearer)
        MCP_WORKLOAD_JWT="$(field valid_jwt)"
        export MCP_WORKLOAD_JWT
        auth+=(--oauth-grant jwt-bearer --oauth-assertion-env MCP_WORKLOAD_JWT) ;;
    auth/dpop | auth/dpop-nonce) auth+=(--oauth-dpop) ;;
esac

# The skills extension's scenarios (SEP-2640): the no-prefetch one only lists, as a person
# looking at the server's skills does (nothing may be read before a skill is asked for); the
# others load each listed skill, whose tampered SKILL.md must be refused (exit 1) before any of
# its files is read.
case "${MCP_CONFORMANCE_SCENARIO:-}" in
    sep-2640-client-no-prefetch)
        exec "$toolscope" skills --url "$url" "${auth[@]}"
        ;;
    sep-2640-client-*)
        skills_json="$("$toolscope" skills --url "$url" "${auth[@]}" --json)" || exit 1
        mapfile -t names < <(python3 -c 'import json,sys
for skill in json.loads(sys.argv[1])["skills"]: print(skill["uri"])' "$skills_json")
        status=0
        for name in "${names[@]}"; do
            "$toolscope" skill --url "$url" "${auth[@]}" "$name" || status=$?
        done
        exit "$status"
        ;;
esac

# What to call: the calls the scenario names (MCP_CONFORMANCE_CONTEXT's toolCalls), else
# every tool the server lists, once, with its schema's defaults (or small values): what a person
# trying the server would do first. Two scenarios ask for something else: echo a tool's input
# schema back as it was received, and only list (a $ref in a schema must not be fetched).
tools_json="$("$toolscope" tools --url "$url" "${auth[@]}" --json)" || exit 1
mapfile -t calls < <(python3 - "$tools_json" "$context" "${MCP_CONFORMANCE_SCENARIO:-}" <<'PY'
import json, sys
doc, context, scenario = json.loads(sys.argv[1]), json.loads(sys.argv[2] or "{}"), sys.argv[3]
tools = doc.get("tools", []) if isinstance(doc, dict) else doc
def call(name, args):
    print(name + "\t" + json.dumps(args))
if scenario == "json-schema-ref-no-deref":
    pass
elif scenario == "json-schema-2020-12-preservation":
    focal = next(t for t in tools if t["name"] != "json_schema_echo")
    call("json_schema_echo", {"schema": focal.get("inputSchema")})
elif context.get("toolCalls"):
    for wanted in context["toolCalls"]:
        call(wanted["name"], wanted.get("arguments", {}))
else:
    for tool in tools:
        args = {}
        for name, prop in ((tool.get("inputSchema") or {}).get("properties") or {}).items():
            if "default" in prop:
                args[name] = prop["default"]
            elif prop.get("type") in ("number", "integer"):
                args[name] = 2
            elif prop.get("type") == "string":
                args[name] = "conformance"
            elif prop.get("type") == "boolean":
                args[name] = True
        call(tool["name"], args)
PY
)
status=0
for call in "${calls[@]}"; do
    name="${call%%$'\t'*}"
    args="${call#*$'\t'}"
    "$toolscope" call --url "$url" "${auth[@]}" --elicit accept-defaults \
        --no-history "$name" --args "$args" || status=$?
done
exit "$status"
