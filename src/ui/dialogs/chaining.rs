//! "Use as argument of…": a value from one tool's structured result becomes an argument of
//! another tool. This is what structured output is for.

use std::sync::Arc;

use serde_json::Value;

use crate::ui::actions::Action;
use crate::workbench::ToolKey;
use toolscope_core::session::ToolCatalog;

pub struct ChainingDialog {
    from_tool: ToolKey,
    pointer: String,
    value: Value,
    /// The start of the value as JSON, made once.
    preview: String,
    /// Shared with the model: opening the dialog copies nothing.
    tools: Arc<ToolCatalog>,
    target_tool: Option<String>,
    argument: Option<String>,
    /// Filters the list of tools (name, title or description).
    search: String,
    /// Tool positions: those with an argument of the value's type first, then the others.
    ordered: (Vec<usize>, Vec<usize>),
}

impl ChainingDialog {
    pub fn new(from_tool: ToolKey, pointer: String, value: Value, tools: Arc<ToolCatalog>) -> Self {
        let text = toolscope_core::deep_json::to_string(&value);
        let preview = toolscope_core::text_util::cut_at_char_boundary(&text, 300).to_owned();
        let (mut compatible, others): (Vec<usize>, Vec<usize>) = (0..tools.tools.len())
            .filter(|&index| tools.tools[index].name != from_tool.name)
            .partition(|&index| {
                !matching_arguments(tools.tools[index].input_schema.as_ref(), &value).is_empty()
            });
        // The most compatible first: a tool with an argument the value satisfies whole (rows
        // for a table's `data`) before one that only takes its JSON type (numbers for a chart).
        compatible.sort_by_key(|&index| {
            !fits_an_argument(tools.tools[index].input_schema.as_ref(), &value)
        });
        // Start on the most compatible tool, if there is one.
        let target_tool = compatible
            .first()
            .map(|&index| tools.tools[index].name.clone());
        let mut dialog = Self {
            from_tool,
            preview,
            pointer,
            value,
            tools,
            target_tool,
            argument: None,
            search: String::new(),
            ordered: (compatible, others),
        };
        dialog.pick_default_argument();
        dialog
    }

    fn pick_default_argument(&mut self) {
        let schema = self.target_schema();
        self.argument = matching_arguments(schema, &self.value)
            .into_iter()
            .next()
            .or_else(|| arguments(schema).into_iter().next().map(|(name, _)| name));
    }

    fn target_schema(&self) -> Option<&Value> {
        let name = self.target_tool.as_deref()?;
        self.tools.find(name)?.input_schema.as_ref()
    }

    pub fn draw(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) -> bool {
        let mut open = true;
        let mut action = None;
        let modal = egui::Modal::new(egui::Id::unique("chaining")).show(ctx, |ui| {
            ui.set_width(480.0);
            ui.heading("Use as argument of…");
            let pointer = if self.pointer.is_empty() {
                "(the whole value)".to_owned()
            } else {
                self.pointer.clone()
            };
            ui.label(format!(
                "From {}: {pointer}, {}",
                self.from_tool.name,
                toolscope_core::text_util::json_shape_phrase(&self.value)
            ));
            let preview = egui::RichText::new(&self.preview).monospace().small();
            ui.add(egui::Label::new(preview).wrap());
            ui.separator();
            let before = self.target_tool.clone();
            let search_label = ui.label("Search tools");
            ui.add(
                egui::TextEdit::singleline(&mut self.search)
                    .hint_text("name, title or description")
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(search_label.id);
            let needle = self.search.to_lowercase();
            let shown = |index: &&usize| {
                let tool = &self.tools.tools[**index];
                needle.is_empty()
                    || tool.name.to_lowercase().contains(&needle)
                    || tool.display_name().to_lowercase().contains(&needle)
                    || tool
                        .description
                        .as_deref()
                        .is_some_and(|d| d.to_lowercase().contains(&needle))
            };
            let compatible: Vec<usize> = self.ordered.0.iter().filter(shown).copied().collect();
            let others: Vec<usize> = self.ordered.1.iter().filter(shown).copied().collect();
            egui::ScrollArea::vertical()
                .id_salt("chain_tools")
                .max_height(200.0)
                .show(ui, |ui| {
                    let kind = toolscope_core::text_util::json_type_phrase(&self.value);
                    for (heading, list) in [
                        (
                            format!("Tools with an argument that takes {kind}"),
                            &compatible,
                        ),
                        ("Other tools".to_owned(), &others),
                    ] {
                        if list.is_empty() {
                            continue;
                        }
                        ui.weak(heading);
                        for &index in list {
                            let tool = &self.tools.tools[index];
                            ui.selectable_value(
                                &mut self.target_tool,
                                Some(tool.name.clone()),
                                tool.display_name(),
                            );
                        }
                    }
                    if compatible.is_empty() && others.is_empty() {
                        ui.weak("No tool matches the search");
                    }
                });
            if self.target_tool != before {
                self.pick_default_argument();
            }
            let choices = arguments(self.target_schema());
            let argument_label = ui.label("Argument");
            egui::ComboBox::from_id_salt("chain_argument")
                .selected_text(self.argument.as_deref().unwrap_or("(pick an argument)"))
                .show_ui(ui, |ui| {
                    for (name, kind) in &choices {
                        ui.selectable_value(
                            &mut self.argument,
                            Some(name.clone()),
                            format!("{name} ({kind})"),
                        );
                    }
                })
                .response
                .labelled_by(argument_label.id);
            if choices.is_empty() && self.target_tool.is_some() {
                ui.weak("This tool declares no arguments");
            }
            ui.separator();
            ui.horizontal(|ui| {
                let ready = self.target_tool.is_some() && self.argument.is_some();
                if ui
                    .add_enabled(ready, egui::Button::new("Fill in"))
                    .clicked()
                    && let (Some(to_tool), Some(argument)) =
                        (self.target_tool.clone(), self.argument.clone())
                {
                    action = Some(Action::CompleteChaining {
                        to_tool: ToolKey::new(self.from_tool.server, to_tool),
                        argument,
                        value: self.value.clone(),
                        from: format!("{} {pointer}", self.from_tool.name),
                    });
                    open = false;
                }
                if ui.button("Cancel").clicked() {
                    open = false;
                }
            });
        });
        if modal.should_close() {
            open = false;
        }
        actions.extend(action);
        open
    }
}

/// The top-level properties of an input schema with their types.
fn arguments(schema: Option<&Value>) -> Vec<(String, String)> {
    let Some(properties) = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            (
                name.clone(),
                crate::ui::schema_view::type_text(schema.unwrap_or(&Value::Null), property),
            )
        })
        .collect()
}

/// Arguments whose declared type fits the value's JSON type.
/// Whether one of the tool's arguments takes `value` as it is (its schema satisfied).
fn fits_an_argument(schema: Option<&Value>, value: &Value) -> bool {
    let Some(properties) = schema
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object)
    else {
        return false;
    };
    properties
        .values()
        .any(|property| toolscope_core::analysis::fits_schema(property, value))
}

fn matching_arguments(schema: Option<&Value>, value: &Value) -> Vec<String> {
    let wanted = match value {
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::String(_) => "string",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
    };
    arguments(schema)
        .into_iter()
        .filter(|(_, kind)| {
            kind.starts_with(wanted) || (wanted == "integer" && kind.starts_with("number"))
        })
        .map(|(name, _)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_tool_whose_argument_takes_the_value_whole_comes_first() {
        let mut catalog = ToolCatalog::default();
        catalog.add_page(
            &json!({"tools": [
                {"name": "chart", "inputSchema": {"type": "object", "properties": {
                    "values": {"type": "array", "items": {"type": "number"}}}}},
                {"name": "format_table", "inputSchema": {"type": "object", "properties": {
                    "data": {"type": "array", "items": {"type": "object"}}}}},
            ]}),
            false,
        );
        let catalog = Arc::new(catalog);
        let rows = json!([{"name": "Ada", "city": "London"}]);
        let dialog = ChainingDialog::new(
            ToolKey::new(crate::workbench::DEMO_SERVER, "query_db"),
            "/rows".to_owned(),
            rows,
            catalog,
        );
        assert_eq!(dialog.target_tool.as_deref(), Some("format_table"));
        assert_eq!(dialog.argument.as_deref(), Some("data"));
    }

    #[test]
    fn rows_find_the_data_argument() {
        let schema = json!({"type": "object", "properties": {"title": {"type": "string"}, "data": {"type": "array", "items": {"type": "object"}}}});
        assert_eq!(
            matching_arguments(Some(&schema), &json!([{"a": 1}])),
            vec!["data"]
        );
        assert_eq!(
            matching_arguments(Some(&schema), &json!("x")),
            vec!["title"]
        );
    }
}
