//! What only the window keeps: per tool its argument form and result tree, per server the
//! tool filter, the logs panel, open dialogs, layout. The model knows none of it.

use std::{
    collections::{HashMap, hash_map::Entry},
    sync::Arc,
};

use super::{
    analysis_view::Verdict,
    argument_editor::ArgumentEditor,
    chaining::ChainingDialog,
    json_tree::JsonTreeState,
    logs_panel::{LogRows, LogsTab},
    pane_split::Placement,
    server_editor::ServerEditor,
    tour::Tour,
};
use crate::{
    session::{ToolCatalog, ToolEntry},
    settings::Layout,
    workbench::{Model, ServerId, ToolKey},
};

/// A tool's form and result tree, built for one revision of its definition.
pub struct ToolView {
    pub editor: ArgumentEditor,
    pub tree: JsonTreeState,
    revision: u64,
}

/// The tools matching a filter, computed once per filter text and tool list.
#[derive(Default)]
pub struct ToolFilter {
    pub text: String,
    cached: Option<(String, *const ToolCatalog, Vec<usize>)>,
    /// The row the arrow keys point at while the filter has the focus (Enter selects it).
    pub cursor: Option<usize>,
    /// The list's scroll offset and height last frame, to keep the cursor row in view.
    pub scroll: (f32, f32),
}

impl ToolFilter {
    /// Indices of the tools whose name, title or description contain the text (any case).
    pub fn matching(&mut self, catalog: &Arc<ToolCatalog>) -> &[usize] {
        let list = Arc::as_ptr(catalog);
        let fresh = self
            .cached
            .as_ref()
            .is_some_and(|(text, cached_list, _)| *text == self.text && *cached_list == list);
        if !fresh {
            let needle = self.text.to_lowercase();
            let indices = catalog
                .tools
                .iter()
                .enumerate()
                .filter(|(_, tool)| needle.is_empty() || tool_matches(tool, &needle))
                .map(|(index, _)| index)
                .collect();
            self.cached = Some((self.text.clone(), list, indices));
        }
        self.cached
            .as_ref()
            .map_or(&[], |(_, _, indices)| indices.as_slice())
    }
}

fn tool_matches(tool: &ToolEntry, needle: &str) -> bool {
    let contains = |text: &str| text.to_lowercase().contains(needle);
    contains(&tool.name)
        || tool.title.as_deref().is_some_and(contains)
        || tool.annotations.title.as_deref().is_some_and(contains)
        || tool.description.as_deref().is_some_and(contains)
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

pub struct ViewState {
    tools: HashMap<ToolKey, ToolView>,
    pub schema_texts: SchemaTexts,
    pub tool_filters: HashMap<ServerId, ToolFilter>,
    pub logs_open: bool,
    pub logs_tab: LogsTab,
    pub log_filter: String,
    pub log_rows: LogRows,
    pub markdown: egui_commonmark::CommonMarkCache,
    /// The layout as the user is shaping it (saved through the model, see `layout_memory`).
    pub layout: Layout,
    /// What the result area shows: both halves, the raw response or the request.
    pub result_tab: ResultTab,
    /// The guided tour, while it runs.
    pub tour: Option<Tour>,
    /// The tour is offered (a first start) and the user has not answered.
    pub tour_offered: bool,
    /// A zoom was set this frame; the context reports it from the next one.
    pub zoom_pending: bool,
    /// In presentation mode: the layout to go back to.
    pub presenting: Option<Layout>,
    /// Ctrl+K asked for the tool filter's focus (it may be drawn only once the sidebar opens).
    pub focus_tool_filter: bool,
    /// The tool whose first argument takes the focus when its form is next drawn.
    pub focus_arguments_of: Option<ToolKey>,
    /// The raw response tab shows base64 data whole (it is cut short otherwise).
    pub raw_base64_in_full: bool,
    /// The verdict chip the user toggled, and on which result.
    pub expanded_verdict: Option<(crate::workbench::CallId, Verdict)>,
    /// Where the result area and its two panes were drawn last frame (`None`: not drawn).
    pub result_area: Option<egui::Rect>,
    pub panes: Option<Placement>,
    pub server_editor: Option<ServerEditor>,
    pub import_dialog: Option<super::import_dialog::ImportDialog>,
    pub chaining: Option<ChainingDialog>,
    /// What the sidebar lists below the servers.
    pub sidebar_tab: SidebarTab,
    /// The case file path as typed in the Cases tab.
    pub case_path: String,
    /// The comparison's tab, selection and trees.
    pub compare: CompareViewState,
    /// The dialog that writes the marked history calls, when open.
    pub write_marked: Option<super::write_marked_dialog::WriteMarkedDialog>,
    /// The "Open recording" dialog, when open.
    pub open_recording: Option<super::open_recording_dialog::OpenRecordingDialog>,
    /// The "Save as case" dialog, when open.
    pub save_case: Option<super::save_case_dialog::SaveCaseDialog>,
    /// What the person has entered for the question a server asked.
    pub ask_draft: Option<super::ask_dialog::AskDraft>,
    /// The history list's filters as typed.
    pub history_filter: HistoryFilter,
    /// The tree of a call shown from the history or from a case (not a tool's live result).
    pub history_tree: JsonTreeState,
    /// The note being edited, for the call with this history id.
    pub history_note: Option<(i64, String)>,
}

/// What the window keeps of the comparison it shows.
#[derive(Default)]
pub struct CompareViewState {
    pub tab: CompareTab,
    /// The change picked in the list (its pointer on the new side).
    pub selected: Option<String>,
    pub old_tree: JsonTreeState,
    pub new_tree: JsonTreeState,
    /// Where the two trees meet (a share of the width; 0 means not set yet: half).
    pub split: f32,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CompareTab {
    #[default]
    Structured,
    Text,
}

/// The sidebar's tabs below the servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SidebarTab {
    Tools,
    History,
    Cases,
}

/// What the history list is narrowed to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryFilter {
    pub text: String,
    pub verdict: Option<crate::history::Verdict>,
    /// Only calls of the selected server.
    pub this_server_only: bool,
    /// The filter the list was last asked for (`None`: not asked yet), and how many calls the
    /// history held then (a list on screen is asked for again when calls were added).
    pub(crate) queried: Option<(String, Option<crate::history::Verdict>, Option<String>, u64)>,
}

/// The tabs of the result area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultTab {
    /// The analysis and the two panes.
    Result,
    RawResponse,
    /// The arguments that were sent.
    Request,
}

impl Default for ViewState {
    fn default() -> Self {
        Self {
            tools: HashMap::new(),
            schema_texts: SchemaTexts::default(),
            tool_filters: HashMap::new(),
            logs_open: false,
            logs_tab: LogsTab::Protocol,
            log_filter: String::new(),
            log_rows: LogRows::default(),
            markdown: egui_commonmark::CommonMarkCache::default(),
            layout: Layout::default(),
            result_tab: ResultTab::Result,
            tour: None,
            tour_offered: false,
            zoom_pending: false,
            presenting: None,
            focus_tool_filter: false,
            focus_arguments_of: None,
            raw_base64_in_full: false,
            expanded_verdict: None,
            result_area: None,
            panes: None,
            server_editor: None,
            import_dialog: None,
            chaining: None,
            sidebar_tab: SidebarTab::Tools,
            case_path: String::new(),
            save_case: None,
            ask_draft: None,
            open_recording: None,
            compare: CompareViewState::default(),
            write_marked: None,
            history_filter: HistoryFilter::default(),
            history_tree: JsonTreeState::new(),
            history_note: None,
        }
    }
}

impl ViewState {
    /// The tool's form and tree, made with its remembered arguments on first use and made
    /// again when its definition changed.
    /// The result tree for `key`'s result, or for the call shown from the history.
    pub fn tree_of(&mut self, key: &ToolKey, from_history: bool) -> &mut JsonTreeState {
        match self.tools.get_mut(key) {
            Some(tool) if !from_history => &mut tool.tree,
            _ => &mut self.history_tree,
        }
    }

    pub fn tool_view(&mut self, model: &Model, key: &ToolKey, tool: &ToolEntry) -> &mut ToolView {
        let revision = model.tool_revision(key);
        let make = || {
            let empty = serde_json::json!({"type": "object"});
            let mut editor = ArgumentEditor::new(tool.input_schema.as_ref().unwrap_or(&empty));
            if let Some(remembered) = model.remembered_arguments(key) {
                editor.set_arguments(remembered);
            }
            ToolView {
                editor,
                tree: JsonTreeState::new(),
                revision,
            }
        };
        match self.tools.entry(key.clone()) {
            Entry::Occupied(mut entry) => {
                if entry.get().revision != revision {
                    entry.insert(make());
                }
                entry.into_mut()
            }
            Entry::Vacant(entry) => entry.insert(make()),
        }
    }

    /// The view of a tool if it was made already.
    pub fn existing_tool_view(&self, key: &ToolKey) -> Option<&ToolView> {
        self.tools.get(key)
    }

    pub fn existing_tool_view_mut(&mut self, key: &ToolKey) -> Option<&mut ToolView> {
        self.tools.get_mut(key)
    }

    /// Frees the result trees of the tools not on screen (their indexes grow with the result);
    /// the model keeps their results small meanwhile.
    pub fn release_hidden(&mut self, shown: Option<&ToolKey>) {
        for (key, view) in &mut self.tools {
            if Some(key) != shown && view.tree.is_built() {
                view.tree = JsonTreeState::new();
            }
        }
    }

    /// Drops what belonged to a removed server.
    pub fn forget_server(&mut self, server: ServerId) {
        self.tools.retain(|key, _| key.server != server);
        self.tool_filters.remove(&server);
    }
}
