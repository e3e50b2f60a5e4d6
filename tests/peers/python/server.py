"""Toolscope test peer: an MCP server built with the official Python SDK (`mcp` 2.3).

Run over stdio:  tests/peers/python/.venv/bin/python tests/peers/python/server.py
Over Streamable HTTP on 127.0.0.1:PORT/mcp:  … server.py --http PORT

Each tool exercises one way the SDK shapes a tool result (see the docstrings).
"""

from __future__ import annotations

import json
from typing import Annotated

from mcp.server.mcpserver import Elicit, ElicitationResult, ListRoots, MCPServer, Resolve, Sample
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer(name="toolscope-python-peer", version="0.1.0")


class CalcResult(BaseModel):
    value: int
    operation: str
    is_success: bool


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers (scalar return: wrapped as {"result": n})."""
    return a + b


@server.tool()
def add_model(a: int, b: int) -> CalcResult:
    """Add two integers and return a CalcResult model (model schema as outputSchema)."""
    return CalcResult(value=a + b, operation="add", is_success=True)


@server.tool(structured_output=False)
def add_text(a: int, b: int) -> int:
    """Add two integers with structured output turned off (text only, no outputSchema)."""
    return a + b


@server.tool()
def primes(n: int) -> list[int]:
    """Return the first n prime numbers (list return: wrapped, one text block per item)."""
    found: list[int] = []
    candidate = 2
    while len(found) < n:
        if all(candidate % p for p in found if p * p <= candidate):
            found.append(candidate)
        candidate += 1
    return found


@server.tool()
def fail(reason: str) -> int:
    """Always fail with ToolError: a result with isError: true whose text carries the reason."""
    raise ToolError(reason)


@server.tool()
def crash(reason: str) -> int:
    """Raise a plain exception: isError: true, text "Error executing tool crash" (reason stays in the server log)."""
    raise ValueError(reason)


@server.tool()
def protocol_error(reason: str) -> int:
    """Raise MCPError: the SDK answers with a JSON-RPC error (code -32000), not a result."""
    raise MCPError(-32000, reason)


@server.tool()
def bad_contract() -> CalcResult:
    """Declare CalcResult but return a value that violates it.

    mcp 2.3 validates the return value against the model itself, so the wire shows
    isError: true ("Error executing tool bad_contract: ...") rather than bad structured content.
    """
    return {"value": "not a number", "operation": 42}  # type: ignore[return-value]


@server.tool()
def bad_contract_raw() -> CalcResult:
    """Advertise the CalcResult outputSchema but send structuredContent that violates it.

    The SDK skips output validation for a tool whose schema has no model behind it
    (see below), so this result goes on the wire as is, with isError absent.
    """
    return CallToolResult(  # type: ignore[return-value]
        content=[TextContent(type="text", text='{"value": "not a number", "operation": 42}')],
        structured_content={"value": "not a number", "operation": 42},
    )


# Keep the published outputSchema but drop the model it is validated against.
server._tool_manager.get_tool("bad_contract_raw").fn_metadata.output_model = None


@server.tool()
def greet_zh(name: str) -> str:
    """用中文向某人问好。返回一句中文问候语。"""
    return f"你好，{name}！欢迎使用 Toolscope。"


class Booking(BaseModel):
    date: str
    guests: int = 2


def ask_booking() -> Elicit[Booking]:
    return Elicit("When would you like the table, and for how many?", Booking)


@server.tool()
def book_table(
    restaurant: str, booking: Annotated[ElicitationResult[Booking], Resolve(ask_booking)]
) -> str:
    """Ask the person for a date and party size (elicitation: an input_required round on
    2026-07-28, an elicitation/create request on 2025-11-25), then book."""
    if booking.action != "accept":
        return f"No booking at {restaurant}: the person chose {booking.action}."
    return f"Booked {restaurant} on {booking.data.date} for {booking.data.guests}."


class Confirm(BaseModel):
    sure: bool


def ask_first() -> Elicit[Booking]:
    return Elicit("First: when, and for how many?", Booking)


def ask_second(first: Annotated[Booking, Resolve(ask_first)]) -> Elicit[Confirm]:
    return Elicit(f"Book {first.date} for {first.guests}?", Confirm)


@server.tool()
def book_twice(
    booking: Annotated[Booking, Resolve(ask_first)],
    confirm: Annotated[Confirm, Resolve(ask_second)],
) -> str:
    """Two questions, the second built on the first's answer: two input_required rounds,
    the first answer carried in requestState."""
    return f"{'Booked' if confirm.sure else 'Not booked'}: {booking.date} for {booking.guests}."


def ask_model(topic: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"A haiku about {topic}"))],
        max_tokens=60,
        system_prompt="You write haiku.",
    )


@server.tool()
def haiku(topic: str, reply: Annotated[object, Resolve(ask_model)]) -> str:
    """Ask the client's model for a haiku (sampling), and return its text."""
    content = reply.content
    return content.text if isinstance(content, TextContent) else str(content)


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def count_roots(roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> int:
    """Ask the client for its roots and count them."""
    return len(roots.roots)


APP_URI = "ui://toolscope-peer/booking.html"
APP_HTML = "<!doctype html><html><body><h1>Book a table</h1><form id=booking></form></body></html>"


@server.resource(
    APP_URI,
    mime_type="text/html;profile=mcp-app",
    meta={"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}},
)
def booking_app() -> str:
    """The HTML of the booking app (an MCP App's ui:// resource)."""
    return APP_HTML


@server.tool(meta={"ui": {"resourceUri": APP_URI}})
def show_booking(restaurant: str) -> str:
    """An MCP App: a host renders the ui:// resource named in _meta.ui.resourceUri."""
    return f"Showing the booking form for {restaurant}."


@server.resource("ui://toolscope-peer/plain.html", mime_type="text/html")
def plain_page() -> str:
    """A page served as plain text/html, not as an MCP App."""
    return "<html><body>plain</body></html>"


@server.tool(meta={"ui": {"resourceUri": "ui://toolscope-peer/plain.html",
                          "csp": {"connectDomains": ["https://api.example.com"]}}})
def show_plain() -> str:
    """An MCP App made wrong: its CSP is on the tool, and its page is plain text/html."""
    return "shown"


@server.resource("config://settings", mime_type="application/json")
def settings() -> str:
    """Settings as JSON (a resource whose contents are JSON)."""
    return json.dumps({"theme": "dark", "limits": {"calls": 100, "bytes": 1048576}})


@server.resource("note://{name}", mime_type="text/plain")
def note(name: str) -> str:
    """A note by its name (a resource template)."""
    return f"Note {name}: remember the milk."


@server.prompt(title="Code review")
def review(code: str, language: str = "python") -> str:
    """Asks for a review of a piece of code."""
    return f"Please review this {language} code:\n\n{code}"


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["--http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
