//! A finished call: the analysis, then content (what the model reads) and structuredContent
//! (what the application reads) side by side in resizable panes, and the raw response.

use super::{
    actions::Action,
    analysis_view, content_pane,
    json_tree::{self, JsonTreeAction, JsonTreeState},
};
use crate::{
    analysis::ContractCheck,
    session::{RawResponse, ToolEntry},
    workbench::{CallRecord, ToolKey},
};

pub fn ui(
    ui: &mut egui::Ui,
    key: &ToolKey,
    tool: &ToolEntry,
    record: &CallRecord,
    tree: &mut JsonTreeState,
    actions: &mut Vec<Action>,
) {
    ui.horizontal(|ui| {
        ui.strong("Result");
        ui.weak(format!(
            "{} · {} ms · protocol {}",
            record.outcome.tool,
            record.outcome.duration.as_millis(),
            record.protocol_version
        ));
    });
    analysis_view::ui(ui, key, &record.analysis, actions);
    egui::CollapsingHeader::new("Raw JSON-RPC response")
        .id_salt(("raw_response", record.id))
        .show(ui, |ui| {
            if ui.small_button("Copy").clicked() {
                ui.ctx().copy_text(record.response_text());
            }
            if record.response_preview_cut {
                ui.weak("The response is long: this shows its beginning; Copy takes all of it");
            }
            egui::ScrollArea::vertical()
                .id_salt("raw_scroll")
                .max_height(240.0)
                .show(ui, |ui| {
                    let shown = egui::RichText::new(&record.response_preview).monospace();
                    ui.add(egui::Label::new(shown).selectable(true));
                });
        });
    ui.separator();
    if let RawResponse::RpcError(_) = &record.outcome.response {
        ui.label("A JSON-RPC error has no content and no structuredContent: the request itself was rejected");
        return;
    }
    let half = ui.available_width() / 2.0;
    egui::Panel::left(("content_pane", record.server))
        .resizable(true)
        .default_size(half)
        .min_size(120.0)
        .show(ui, |ui| {
            ui.heading("content — what the model reads");
            content_pane::ui(ui, record, actions);
        });
    egui::CentralPanel::default().show(ui, |ui| {
        ui.heading("structuredContent — what the application reads");
        match record.structured_content() {
            Some(value) => {
                let action = json_tree::json_tree_ui(ui, "structured", record.id, value, tree);
                if let Some(JsonTreeAction::UseAsArgument { pointer, value }) = action {
                    actions.push(Action::StartChaining {
                        from_tool: key.clone(),
                        pointer,
                        value,
                    });
                }
            }
            None => {
                ui.label(empty_structured_text(tool, record));
            }
        }
    });
}

/// Why there is nothing on the application side, in words.
fn empty_structured_text(tool: &ToolEntry, record: &CallRecord) -> &'static str {
    match (&tool.output_schema, &record.analysis.contract) {
        (None, _) => {
            "This tool declares no output schema and returned no structuredContent: an \
             application only gets text"
        }
        (Some(_), ContractCheck::NotChecked { .. }) => {
            "No structuredContent: the tool reported an error, so its output schema does not apply"
        }
        (Some(_), _) => {
            "This tool declares an output schema but returned no structuredContent: a contract \
             violation, the application gets nothing typed"
        }
    }
}
