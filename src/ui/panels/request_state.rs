//! What the request column keeps per tool: its argument form (made for one revision of the
//! tool's definition), the pretty schema texts, the Markdown cache of descriptions, and which
//! form takes the focus when next drawn.

use std::{
    collections::{HashMap, hash_map::Entry},
    sync::Arc,
};

use crate::{
    ui::argument_editor::ArgumentEditor,
    workbench::{Model, ServerId, ToolKey},
};
use toolscope_core::{session::ToolCatalog, session::ToolEntry};

#[derive(Default)]
pub struct RequestState {
    forms: HashMap<ToolKey, Form>,
    pub schema_texts: SchemaTexts,
    pub markdown: egui_commonmark::CommonMarkCache,
    /// The tool whose first argument takes the focus when its form is next drawn.
    pub focus_arguments_of: Option<ToolKey>,
    /// The column's width as drawn last frame (`None`: folded or not drawn).
    pub drawn_width: Option<f32>,
    /// The tool whose output schema opens when its definition is next drawn (the tour).
    pub open_output_schema_of: Option<ToolKey>,
    /// "Arguments…" asked for the column where it had given way to the panes (a narrow
    /// window, a big zoom).
    pub shown_anyway: bool,
}

/// A tool's argument form, built for one revision of its definition.
struct Form {
    editor: ArgumentEditor,
    revision: u64,
}

impl RequestState {
    /// The tool's form, made with its remembered arguments on first use and made again when
    /// its definition changed.
    pub fn editor(
        &mut self,
        model: &Model,
        key: &ToolKey,
        tool: &ToolEntry,
    ) -> &mut ArgumentEditor {
        let revision = model.tool_revision(key);
        let make = || {
            let empty = serde_json::json!({"type": "object"});
            let mut editor = ArgumentEditor::new(tool.input_schema.as_ref().unwrap_or(&empty));
            if let Some(remembered) = model.remembered_arguments(key) {
                editor.set_arguments(remembered);
            }
            Form { editor, revision }
        };
        let form = match self.forms.entry(key.clone()) {
            Entry::Occupied(mut entry) => {
                if entry.get().revision != revision {
                    entry.insert(make());
                }
                entry.into_mut()
            }
            Entry::Vacant(entry) => entry.insert(make()),
        };
        &mut form.editor
    }

    /// The tool's form if it was made already.
    pub fn existing_editor(&self, key: &ToolKey) -> Option<&ArgumentEditor> {
        self.forms.get(key).map(|form| &form.editor)
    }

    /// Drops the forms of a removed server.
    pub fn forget_server(&mut self, server: ServerId) {
        self.forms.retain(|key, _| key.server != server);
    }
}

/// Pretty JSON of the schemas of one tool list, made when first shown (never per frame).
#[derive(Default)]
pub struct SchemaTexts {
    list: Option<*const ToolCatalog>,
    texts: HashMap<(usize, bool), String>,
}

impl SchemaTexts {
    /// The pretty text of the input (`output: false`) or output schema of tool `index`.
    pub fn get(&mut self, catalog: &Arc<ToolCatalog>, index: usize, output: bool) -> &str {
        let list = Arc::as_ptr(catalog);
        if self.list != Some(list) {
            self.list = Some(list);
            self.texts.clear();
        }
        self.texts.entry((index, output)).or_insert_with(|| {
            let tool = catalog.tools.get(index);
            let schema = tool.and_then(|tool| {
                if output {
                    tool.output_schema.as_ref()
                } else {
                    tool.input_schema.as_ref()
                }
            });
            schema
                .map(super::schema_view::schema_text)
                .unwrap_or_default()
        })
    }
}
