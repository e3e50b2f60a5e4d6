//! What the sidebar keeps: its tab, each server's tool filter, the history's filters and the
//! case file path as typed.

use std::{collections::HashMap, sync::Arc};

use crate::workbench::ServerId;
use toolscope_core::session::{ToolCatalog, ToolEntry};

pub struct SidebarState {
    /// What the sidebar lists below the servers.
    pub tab: SidebarTab,
    pub tool_filters: HashMap<ServerId, ToolFilter>,
    /// Ctrl+K asked for the tool filter's focus (it may be drawn only once the sidebar opens).
    pub focus_tool_filter: bool,
    /// The history list's filters as typed.
    pub history_filter: HistoryFilter,
    /// The case file path as typed in the Cases tab.
    pub case_path: String,
    /// The Resources tab's filter, and the Prompts tab's.
    pub resource_filter: ListFilter,
    pub prompt_filter: ListFilter,
    /// The result the sidebar folded away for (a window too narrow for it and both panes side
    /// by side), this frame; `None` when it did not give way.
    pub giving_way_to: Option<crate::workbench::CallId>,
    /// The result for which the person opened the sidebar all the same (the next one folds
    /// it again).
    pub shown_anyway_for: Option<crate::workbench::CallId>,
    /// What the Live tab's list was last asked for.
    pub live: LiveFollow,
}

/// What moves in the history when a call is added (`ChangeStamp::calls_mark`).
pub type CallsMark = (i64, u64);

/// How the Live tab follows the history another process writes.
#[derive(Debug, Clone, Default)]
pub struct LiveFollow {
    /// The session and newest call the call list was last asked for (`None`: not asked, or
    /// the History tab asked for its own list since).
    pub queried: Option<(Option<i64>, Option<CallsMark>)>,
}

impl Default for SidebarState {
    fn default() -> Self {
        Self {
            tab: SidebarTab::Tools,
            tool_filters: HashMap::new(),
            focus_tool_filter: false,
            history_filter: HistoryFilter::default(),
            case_path: String::new(),
            resource_filter: ListFilter::default(),
            prompt_filter: ListFilter::default(),
            giving_way_to: None,
            shown_anyway_for: None,
            live: LiveFollow::default(),
        }
    }
}

/// The sidebar's tabs below the servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SidebarTab {
    Tools,
    Resources,
    Prompts,
    /// Its skills (SEP-2640), when it declares the extension.
    Skills,
    /// What the server declared, its log level, round trips.
    Server,
    History,
    /// The sessions seen through `toolscope proxy`, as they happen.
    Live,
    Cases,
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
    /// Indices of the tools whose name, title or description contain the text (any case):
    /// those whose name starts with it first, then the other name matches, the title
    /// matches, and last the description matches, each in the server's order.
    pub fn matching(&mut self, catalog: &Arc<ToolCatalog>) -> &[usize] {
        let list = Arc::as_ptr(catalog);
        let fresh = self
            .cached
            .as_ref()
            .is_some_and(|(text, cached_list, _)| *text == self.text && *cached_list == list);
        if !fresh {
            let needle = self.text.to_lowercase();
            let mut ranked: Vec<(MatchRank, usize)> = catalog
                .tools
                .iter()
                .enumerate()
                .filter_map(|(index, tool)| Some((tool_match(tool, &needle)?, index)))
                .collect();
            // Stable: within a rank, the server's order.
            ranked.sort_by_key(|(rank, _)| *rank);
            let indices = ranked.into_iter().map(|(_, index)| index).collect();
            self.cached = Some((self.text.clone(), list, indices));
        }
        self.cached
            .as_ref()
            .map_or(&[], |(_, _, indices)| indices.as_slice())
    }
}

/// Where a filter's text was found in a tool, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum MatchRank {
    NameStart,
    Name,
    Title,
    Description,
}

/// How `tool` matches the lower-case `needle` (every tool matches an empty one, by name).
fn tool_match(tool: &ToolEntry, needle: &str) -> Option<MatchRank> {
    let contains = |text: &str| text.to_lowercase().contains(needle);
    let name = tool.name.to_lowercase();
    if name.starts_with(needle) {
        Some(MatchRank::NameStart)
    } else if name.contains(needle) {
        Some(MatchRank::Name)
    } else if tool.title.as_deref().is_some_and(contains)
        || tool.annotations.title.as_deref().is_some_and(contains)
    {
        Some(MatchRank::Title)
    } else if tool.description.as_deref().is_some_and(contains) {
        Some(MatchRank::Description)
    } else {
        None
    }
}

/// A list of a server's resources or prompts narrowed by a text, computed once per text and
/// list (a server may list ten thousand resources).
#[derive(Default)]
pub struct ListFilter {
    pub text: String,
    /// Per list (by its address and length): the text it was filtered by and the matches.
    cached: HashMap<(usize, usize), (String, Vec<usize>)>,
}

impl ListFilter {
    /// Indices of the items of `list` that `matches` the text (lower case).
    pub fn matching<T>(
        &mut self,
        list: &Arc<crate::workbench::server_features::ListedItems<T>>,
        matches: fn(&T, &str) -> bool,
    ) -> &[usize] {
        let key = (Arc::as_ptr(list) as usize, list.items.len());
        let fresh = self
            .cached
            .get(&key)
            .is_some_and(|(text, _)| *text == self.text);
        if !fresh {
            // Lists of other servers or older listings are not kept.
            if self.cached.len() > 4 {
                self.cached.clear();
            }
            let needle = self.text.to_lowercase();
            let indices = list
                .items
                .iter()
                .enumerate()
                .filter(|(_, item)| needle.is_empty() || matches(item, &needle))
                .map(|(index, _)| index)
                .collect();
            self.cached.insert(key, (self.text.clone(), indices));
        }
        self.cached
            .get(&key)
            .map_or(&[], |(_, indices)| indices.as_slice())
    }
}

/// What the history list is narrowed to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HistoryFilter {
    pub text: String,
    pub verdict: Option<toolscope_core::history::Verdict>,
    /// Only the calls of the server of this name.
    pub server: Option<String>,
    /// Only tool calls, reads or prompts.
    pub kind: Option<toolscope_core::history::CallKind>,
    /// Only the calls of this tool (picked in the history grouped by tool).
    pub tool: Option<String>,
    /// Only the calls this person recorded (a team's history).
    pub person: Option<String>,
    /// The filter the list was last asked for (`None`: not asked yet).
    pub(crate) queried: Option<AskedFor>,
}

/// The History tab's filter as the list was last asked for it, with how many calls this
/// window had recorded then and the history's calls mark (a list on screen is asked for again
/// when calls were added, here or by another process or machine).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AskedFor {
    pub text: String,
    pub verdict: Option<toolscope_core::history::Verdict>,
    pub server: Option<String>,
    pub tool: Option<String>,
    pub kind: Option<toolscope_core::history::CallKind>,
    pub person: Option<String>,
    pub recorded: (u64, CallsMark),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_name_match_ranks_above_a_title_and_a_description_match() {
        let mut catalog = ToolCatalog::default();
        catalog.add_page(
            &json!({"tools": [
                {"name": "format_table", "description": "Formats what add returns",
                 "inputSchema": {"type": "object"}},
                {"name": "bonus", "title": "Adder", "inputSchema": {"type": "object"}},
                {"name": "sum_add", "inputSchema": {"type": "object"}},
                {"name": "add", "inputSchema": {"type": "object"}},
                {"name": "unrelated", "inputSchema": {"type": "object"}},
            ]}),
            true,
        );
        let catalog = Arc::new(catalog);
        let mut filter = ToolFilter {
            text: "Add".to_owned(),
            ..ToolFilter::default()
        };
        assert_eq!(filter.matching(&catalog), [3, 2, 1, 0]);
        filter.text.clear();
        assert_eq!(
            filter.matching(&catalog),
            [0, 1, 2, 3, 4],
            "the server's order"
        );
    }
}
