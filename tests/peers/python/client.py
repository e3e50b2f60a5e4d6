"""The official Python SDK's client, run against a server command (tests of `toolscope proxy`).

Usage: client.py COMMAND [ARGS...]
Connects over stdio, lists the tools, calls add(2, 3), reads config://settings, gets the
review prompt, and prints one JSON line: what it got.
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


async def main() -> None:
    command, *args = sys.argv[1:]
    # The whole environment (the SDK passes a safe few by default): the proxy's data folder.
    server = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    async with Client(server) as client:
        tools = await client.list_tools()
        added = await client.call_tool("add", {"a": 2, "b": 3})
        settings = await client.read_resource("config://settings")
        prompt = await client.get_prompt("review", {"code": "print(1)"})
        print(
            json.dumps(
                {
                    "tools": sorted(tool.name for tool in tools.tools),
                    "structured": added.structured_content,
                    "settings": settings.contents[0].text,
                    "prompt_messages": len(prompt.messages),
                }
            ),
            flush=True,
        )


asyncio.run(main())
