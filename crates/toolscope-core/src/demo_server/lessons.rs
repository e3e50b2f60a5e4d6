//! What the demo server exists to teach, as the steps of the window's guided tour: for each,
//! the tool to call with which arguments, the part of the screen that shows the point, and two
//! or three sentences on what to notice. Also, for each demo tool, the few lines of Python
//! (official `mcp` SDK) that would produce the same result, since that is where learners come
//! from. Plain data: the window decides how to show it.

use serde_json::{Value, json};

/// The part of the window a lesson points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The content pane: what the model reads.
    Content,
    /// The structuredContent pane: what the application reads.
    Structured,
    /// Both panes side by side.
    BothPanes,
    /// The sentence and the verdict chips above the panes.
    Analysis,
}

/// One step of the guided tour.
#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    pub title: &'static str,
    pub tool: &'static str,
    pub arguments: Value,
    pub focus: Focus,
    /// What to notice, in two or three sentences.
    pub notice: &'static str,
    /// The tool's output schema is part of the evidence: the window opens it.
    pub shows_output_schema: bool,
}

/// The tour, in order.
pub fn lessons() -> Vec<Lesson> {
    vec![
        Lesson {
            title: "A scalar is wrapped",
            tool: "add",
            arguments: json!({"a": 1, "b": 2}),
            focus: Focus::BothPanes,
            notice: "The model reads the text 3; the application reads {\"result\": 3}. A tool \
                     that returns a plain int gets an output schema with one required `result` \
                     property, because structured output had to be an object.",
            shows_output_schema: false,
        },
        Lesson {
            title: "A model is the schema",
            tool: "add_model",
            arguments: json!({"a": 2, "b": 3}),
            focus: Focus::Structured,
            notice: "Returning a Pydantic model makes the model itself the output schema: no \
                     wrapper. structuredContent is the model's fields, and the text the model \
                     reads is the same data as JSON.",
            shows_output_schema: true,
        },
        Lesson {
            title: "Structured output turned off",
            tool: "add_text_only",
            arguments: json!({"a": 2, "b": 3}),
            focus: Focus::Structured,
            notice: "The same sum with structured output turned off: no output schema, no \
                     structuredContent. The model still reads the answer; an application gets \
                     nothing typed and would have to parse prose.",
            shows_output_schema: false,
        },
        Lesson {
            title: "A list, one block per item",
            tool: "primes",
            arguments: json!({"n": 5}),
            focus: Focus::Content,
            notice: "A list return is wrapped as {\"result\": [...]} for the application, while \
                     the Python SDK gives the model one text block per item. The analysis still \
                     recognises the two halves as the same data.",
            shows_output_schema: false,
        },
        Lesson {
            title: "Chain a field into the next tool",
            tool: "query_db",
            arguments: json!({"sql": "SELECT name, city FROM users"}),
            focus: Focus::Structured,
            notice: "structuredContent is what an application can pass on. Right-click `rows` in \
                     the tree and choose \"Use as argument of…\" to fill format_table's `data` \
                     with it, the way a program chains two tools.",
            shows_output_schema: false,
        },
        Lesson {
            title: "A tool error is not a protocol error",
            tool: "divide",
            arguments: json!({"a": 1, "b": 0}),
            focus: Focus::Analysis,
            notice: "Dividing by zero fails inside the tool: the result has isError: true and a \
                     message the model can read and act on. A protocol error (an unknown tool, \
                     bad JSON-RPC) has no result at all.",
            shows_output_schema: false,
        },
        Lesson {
            title: "A broken contract",
            tool: "broken_contract",
            arguments: json!({}),
            focus: Focus::Structured,
            notice: "This tool declares an output schema and breaks it: each violation is marked \
                     on its node, and the analysis lists them as sentences. Click one to jump to \
                     its node; a client that validates would reject this result.",
            shows_output_schema: false,
        },
    ]
}

/// The few lines of Python (official `mcp` SDK) behind a demo tool, where there are some.
pub fn python_equivalent(tool: &str) -> Option<&'static str> {
    Some(match tool {
        "add" => {
            "@mcp.tool()\n\
             def add(a: int, b: int) -> int:\n    \
                 \"\"\"Add two integers.\"\"\"\n    \
                 return a + b"
        }
        "add_model" => {
            "class CalcResult(BaseModel):\n    \
                 value: int\n    \
                 operation: str\n    \
                 is_success: bool\n\
             \n\
             @mcp.tool()\n\
             def add_model(a: int, b: int) -> CalcResult:\n    \
                 return CalcResult(value=a + b, operation=\"add\", is_success=True)"
        }
        "add_text_only" => {
            "@mcp.tool(structured_output=False)\n\
             def add_text_only(a: int, b: int) -> str:\n    \
                 return f\"value={a + b} operation='add' is_success=True\""
        }
        "primes" => {
            "@mcp.tool()\n\
             def primes(n: int) -> list[int]:\n    \
                 found = []\n    \
                 k = 2\n    \
                 while len(found) < n:\n        \
                     if all(k % p for p in found):\n            \
                         found.append(k)\n        \
                     k += 1\n    \
                 return found"
        }
        "divide" => {
            "@mcp.tool()\n\
             def divide(a: float, b: float) -> float:\n    \
                 if b == 0:\n        \
                     # Raised inside a tool: the client gets isError: true.\n        \
                     raise ToolError(f\"cannot divide {a} by zero\")\n    \
                 return a / b"
        }
        "broken_contract" => {
            "@mcp.tool()\n\
             def broken_contract() -> CalcResult:\n    \
                 # The SDK would validate this; a hand-built result need not.\n    \
                 return CallToolResult(\n        \
                     content=[TextContent(type=\"text\", text='{\"value\": \"three\", \"operation\": 7}')],\n        \
                     structuredContent={\"value\": \"three\", \"operation\": 7},\n    \
                 )"
        }
        "query_db" => {
            "class Rows(TypedDict):\n    \
                 rows: list[dict[str, Any]]\n    \
                 count: int\n\
             \n\
             @mcp.tool()\n\
             def query_db(sql: str) -> Rows:\n    \
                 rows = run_select(sql)\n    \
                 return {\"rows\": rows, \"count\": len(rows)}"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lesson_names_a_demo_tool_with_python_beside_it() {
        let tools = crate::demo_server::tools::tool_names();
        for lesson in lessons() {
            assert!(tools.contains(&lesson.tool.to_owned()), "{}", lesson.tool);
            assert!(python_equivalent(lesson.tool).is_some(), "{}", lesson.tool);
            let sentences = lesson.notice.matches(". ").count() + 1;
            assert!(
                (2..=3).contains(&sentences),
                "{}: {sentences} sentences",
                lesson.title
            );
        }
    }
}
