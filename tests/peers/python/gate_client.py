"""The official Python SDK's client making the calls a test names (tests of `toolscope check`
and `toolscope history diff` over sessions recorded through `toolscope proxy`).

Usage: gate_client.py CALLS_JSON COMMAND [ARGS...]
CALLS_JSON is a list of [tool, arguments]. Connects over stdio, lists the tools, makes each
call in order and prints one JSON line: per call, its structuredContent and isError, or the
error the SDK raised (it checks structuredContent against the output schema itself).
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


async def main() -> None:
    calls_json, command, *args = sys.argv[1:]
    # The whole environment (the SDK passes a safe few by default): the proxy's data folder.
    server = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    results = []
    async with Client(server) as client:
        tools = await client.list_tools()
        for tool, arguments in json.loads(calls_json):
            try:
                result = await client.call_tool(tool, arguments)
                results.append(
                    {"structured": result.structured_content, "is_error": result.is_error}
                )
            except Exception as error:  # noqa: BLE001 - the test reads what the SDK said
                results.append({"raised": str(error)})
    print(
        json.dumps({"tools": sorted(tool.name for tool in tools.tools), "calls": results}),
        flush=True,
    )


asyncio.run(main())
