//! What the result area keeps: its tab, the verdict chip opened, the tree of each tool's live
//! result and the one of a call shown from the history or a case, the comparison's view, the
//! note being edited, and where it drew its panes last frame.

use std::collections::HashMap;

use super::pane_split::Placement;
use crate::{
    ui::{analysis_view::Verdict, json_tree::JsonTreeState},
    workbench::{CallId, ServerId, ToolKey},
};

pub struct ResultState {
    /// What the result area shows: both halves, the raw response or the request.
    pub tab: ResultTab,
    /// The raw response tab shows base64 data whole (it is cut short otherwise).
    pub raw_base64_in_full: bool,
    /// The verdict chip the user toggled, and on which result.
    pub expanded_verdict: Option<(CallId, Verdict)>,
    /// Per tool, the tree of its live result.
    trees: HashMap<ToolKey, JsonTreeState>,
    /// The tree of a call shown from the history or from a case (not a tool's live result).
    shown_tree: JsonTreeState,
    /// The comparison's tab, selection and trees.
    pub compare: CompareViewState,
    /// The note being edited, for the call with this history id.
    pub history_note: Option<(i64, String)>,
    /// Text blocks rendered as Markdown.
    pub markdown: egui_commonmark::CommonMarkCache,
    /// Where the result area and its two panes were drawn last frame (`None`: not drawn).
    pub area: Option<egui::Rect>,
    pub panes: Option<Placement>,
    /// The trace viewer's page pattern from the settings (`…{trace_id}`), mirrored each frame.
    pub trace_viewer: Option<String>,
    /// The bridge log entry picked in the app's tab.
    pub app_entry: Option<super::app_run_view::PickedEntry>,
    /// The tools whose app run was seen: the tab goes to the app once, when it starts.
    pub apps_seen: std::collections::HashSet<ToolKey>,
}

impl Default for ResultState {
    fn default() -> Self {
        Self {
            tab: ResultTab::Result,
            raw_base64_in_full: false,
            expanded_verdict: None,
            trees: HashMap::new(),
            shown_tree: JsonTreeState::new(),
            compare: CompareViewState::default(),
            history_note: None,
            markdown: egui_commonmark::CommonMarkCache::default(),
            area: None,
            panes: None,
            trace_viewer: None,
            app_entry: None,
            apps_seen: std::collections::HashSet::new(),
        }
    }
}

/// The tabs of the result area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultTab {
    /// The analysis and the two panes.
    Result,
    RawResponse,
    /// The arguments that were sent.
    Request,
    /// The tool's MCP App as it runs: its state and its bridge log.
    App,
}

impl ResultState {
    /// The result tree for `key`'s live result, or for the call shown from the history.
    pub fn tree_of(&mut self, key: &ToolKey, from_history: bool) -> &mut JsonTreeState {
        self.tree_and_markdown(key, from_history).0
    }

    /// The result tree for `key` (see [`Self::tree_of`]) and the Markdown cache, together (the
    /// two panes are drawn side by side).
    pub fn tree_and_markdown(
        &mut self,
        key: &ToolKey,
        from_history: bool,
    ) -> (&mut JsonTreeState, &mut egui_commonmark::CommonMarkCache) {
        let tree = if from_history {
            &mut self.shown_tree
        } else {
            self.trees.entry(key.clone()).or_default()
        };
        (tree, &mut self.markdown)
    }

    /// The tree of a tool's live result, if it was drawn.
    pub fn existing_tree(&self, key: &ToolKey) -> Option<&JsonTreeState> {
        self.trees.get(key)
    }

    /// Frees the result trees of the tools not on screen (their indexes grow with the result);
    /// the model keeps their results small meanwhile.
    pub fn release_hidden(&mut self, shown: Option<&ToolKey>) {
        self.trees.retain(|key, _| Some(key) == shown);
        // The Raw response or the Request tab draws no tree: its index need not be held.
        if self.tab != ResultTab::Result {
            for tree in self.trees.values_mut() {
                tree.release_index();
            }
            self.shown_tree.release_index();
        }
    }

    pub fn forget_server(&mut self, server: ServerId) {
        self.trees.retain(|key, _| key.server != server);
    }
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
    /// The comparison the tab was chosen for (its address): a new one picks where it differs.
    pub chosen_for: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CompareTab {
    #[default]
    Structured,
    Text,
}
