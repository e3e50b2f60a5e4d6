//! Two results compared, in the space beside the sidebar: what else differs (isError, verdict,
//! contract, duration…) in sentences, then the structuredContent (the changes listed with
//! their JSON Pointers, a click selects the node in both trees, the trees side by side with the
//! changes marked) or the text the model reads (a line diff).

use crate::ui::{
    actions::Action,
    json_tree::{self, JsonTreeState, MarkTone, NodeMark},
    pane_split,
    result_state::{CompareTab, CompareViewState},
};
use crate::workbench::{ComparedCall, ComparisonState, ComparisonView, Model, SelectionAction};
use toolscope_core::compare::{ChangeKind, LineTag, StructuralDiff};

/// Draws the comparison; false when none is shown.
pub fn ui(
    model: &Model,
    view: &mut CompareViewState,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) -> bool {
    let state = model.comparison();
    if !state.is_shown() {
        return false;
    }
    egui::CentralPanel::default().show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.strong("Compare");
            if ui.button("Close the comparison").clicked() {
                actions.push(SelectionAction::CloseComparison.into());
            }
        });
        match state {
            ComparisonState::Ready(shown) => ready_ui(view, ui, shown),
            ComparisonState::Failed(problem) => {
                ui.add(egui::Label::new(
                    egui::RichText::new(problem).color(ui.visuals().error_fg_color),
                ));
            }
            _ => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.weak("Reading and comparing both results…");
                });
            }
        }
    });
    true
}

fn side_label(call: &ComparedCall) -> String {
    format!("{} ({})", call.label, call.verdict.as_str())
}

fn ready_ui(view: &mut CompareViewState, ui: &mut egui::Ui, shown: &ComparisonView) {
    let comparison = &shown.comparison;
    // A new comparison opens where it differs: the text, when only the text does (two reads,
    // two prompts, two tools without structuredContent).
    let address = std::ptr::from_ref(shown) as usize;
    if view.chosen_for != address {
        view.chosen_for = address;
        view.tab = if comparison.structured.is_empty() && !comparison.text.is_identical() {
            CompareTab::Text
        } else {
            CompareTab::Structured
        };
    }
    ui.label(format!(
        "{}  →  {}",
        side_label(&shown.old),
        side_label(&shown.new)
    ));
    for problem in [&shown.old.problem, &shown.new.problem]
        .into_iter()
        .flatten()
    {
        ui.colored_label(ui.visuals().warn_fg_color, problem);
    }
    // What differs in the calls comes first: it explains a different result.
    if !comparison.calls.is_empty() {
        ui.add(
            egui::Label::new(
                egui::RichText::new("These are different calls:")
                    .color(ui.visuals().warn_fg_color)
                    .strong(),
            )
            .wrap(),
        );
        for line in &comparison.calls {
            ui.add(egui::Label::new(format!("• {line}")).wrap());
        }
        ui.add_space(4.0);
    }
    if comparison.is_same_result() {
        ui.colored_label(
            crate::ui::theme::palette(ui.visuals()).good,
            "The same result (only the duration may differ)",
        );
    }
    for line in &comparison.differences {
        ui.label(format!("• {line}"));
    }
    ui.horizontal(|ui| {
        let structured = format!("structuredContent ({})", comparison.structured.summary());
        ui.selectable_value(&mut view.tab, CompareTab::Structured, structured);
        let text = format!("Text ({})", comparison.text.summary());
        ui.selectable_value(&mut view.tab, CompareTab::Text, text);
    });
    ui.separator();
    match view.tab {
        CompareTab::Structured => structured_ui(view, ui, shown),
        CompareTab::Text => text_ui(ui, shown),
    }
}

/// The marks a side's tree shows: what was added, removed or changed there.
fn marks(diff: &StructuralDiff, old_side: bool) -> Vec<NodeMark> {
    diff.changes
        .iter()
        .filter_map(|change| {
            let (pointer, text) = match (change.kind, old_side) {
                (ChangeKind::Added, true) | (ChangeKind::Removed, false) => return None,
                (ChangeKind::Added, false) => (change.pointer.clone(), "added".to_owned()),
                (ChangeKind::Removed, true) => {
                    (change.old_pointer().to_owned(), "removed".to_owned())
                }
                (_, true) => (
                    change.old_pointer().to_owned(),
                    format!(
                        "{} → {}",
                        change.kind.label(),
                        change.new.as_ref().map_or("", |node| node.preview.as_str())
                    ),
                ),
                (_, false) => (
                    change.pointer.clone(),
                    format!(
                        "{} from {}",
                        change.kind.label(),
                        change.old.as_ref().map_or("", |node| node.preview.as_str())
                    ),
                ),
            };
            Some(NodeMark {
                pointer,
                text,
                tone: if change.kind == ChangeKind::Removed {
                    MarkTone::Problem
                } else {
                    MarkTone::Note
                },
                missing_key: None,
            })
        })
        .collect()
}

fn structured_ui(view: &mut CompareViewState, ui: &mut egui::Ui, shown: &ComparisonView) {
    let diff = &shown.comparison.structured;
    if !diff.is_empty() {
        let row_height = ui.spacing().interact_size.y;
        let listed = diff.changes.len();
        egui::ScrollArea::vertical()
            .id_salt("compare_changes")
            .max_height((ui.available_height() * 0.3).max(row_height * 3.0))
            .auto_shrink([false, true])
            .show_rows(ui, row_height, listed, |ui, rows| {
                for change in &diff.changes[rows] {
                    let selected = view.selected.as_deref() == Some(change.pointer.as_str());
                    let row =
                        ui.add(egui::Button::selectable(selected, change.describe()).truncate());
                    if row.clicked() {
                        view.selected = Some(change.pointer.clone());
                        view.old_tree.select_pointer(change.old_pointer());
                        view.new_tree.select_pointer(&change.pointer);
                    }
                }
            });
        if diff.more() > 0 {
            ui.weak(format!(
                "… and {} more changes, counted but not listed",
                diff.more()
            ));
        }
        ui.separator();
    }
    let compare = view;
    if compare.split <= 0.0 {
        compare.split = 0.5;
    }
    pane_split::show(
        ui,
        egui::Id::unique("compare_panes"),
        &mut compare.split,
        |ui| side_tree_ui(ui, "old", &shown.old, &mut compare.old_tree, diff, true),
        |ui| side_tree_ui(ui, "new", &shown.new, &mut compare.new_tree, diff, false),
    );
}

fn side_tree_ui(
    ui: &mut egui::Ui,
    salt: &str,
    call: &ComparedCall,
    tree: &mut JsonTreeState,
    diff: &StructuralDiff,
    old_side: bool,
) {
    ui.vertical(|ui| {
        ui.strong(&call.label);
        let value = call
            .record
            .as_ref()
            .and_then(|record| Some((record.id, record.structured_content()?)));
        match value {
            Some((id, value)) => {
                tree.set_marks(id, || marks(diff, old_side));
                let _ = json_tree::json_tree_ui(ui, salt, id, value, tree);
            }
            None => {
                ui.weak("No structuredContent");
            }
        }
    });
}

fn text_ui(ui: &mut egui::Ui, shown: &ComparisonView) {
    let text = &shown.comparison.text;
    if text.is_identical() {
        ui.weak("The text the model reads is the same on both sides");
        return;
    }
    let lines: Vec<_> = text
        .hunks
        .iter()
        .flat_map(|hunk| hunk.lines.iter())
        .collect();
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace) + 2.0;
    let palette = crate::ui::theme::palette(ui.visuals());
    egui::ScrollArea::both()
        .id_salt("compare_text")
        .auto_shrink([false, false])
        .show_rows(ui, row_height, lines.len(), |ui, rows| {
            for line in &lines[rows] {
                let (sign, color) = match line.tag {
                    LineTag::Unchanged => (' ', ui.visuals().text_color()),
                    LineTag::Inserted => ('+', palette.good),
                    LineTag::Deleted => ('-', palette.error),
                };
                let number =
                    |n: Option<usize>| n.map_or_else(|| "    ".to_owned(), |n| format!("{n:>4}"));
                let mut shown_text = format!(
                    "{} {} {sign} {}",
                    number(line.old_line),
                    number(line.new_line),
                    line.text
                );
                if line.clipped {
                    shown_text.push('…');
                }
                ui.add(
                    egui::Label::new(egui::RichText::new(shown_text).monospace().color(color))
                        .extend(),
                );
            }
        });
    if text.unlisted_lines > 0 {
        ui.weak(format!(
            "… and {} more lines of changes, counted but not listed",
            text.unlisted_lines
        ));
    }
}
