//! The Resources and Prompts tabs: the selected server's resource templates and resources, or
//! its prompts, behind a filter, in a virtualized list that stays smooth with ten thousand
//! items. Picking one shows it beside the sidebar (`panels/feature_view.rs`).

use std::sync::Arc;

use super::SidebarState;
use crate::ui::{actions::Action, theme::icons};
use crate::workbench::{
    self, Model, ServerState,
    server_features::{FeatureList, ListedItems, PickedFeature},
};

const ROW_HEIGHT: f32 = 28.0;

/// One row of a list: what it shows, says on hover, and picks.
struct Row {
    label: String,
    hover: String,
    picks: PickedFeature,
    /// Drawn before the label (a template's mark).
    icon: Option<(egui_material_icons::MaterialIcon, &'static str)>,
    /// Drawn after: subscribed, and updates since.
    subscribed: bool,
    updates: u32,
}

pub fn resources_section(
    model: &Model,
    sidebar: &mut SidebarState,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    let Some(server) = model.selected_server() else {
        return;
    };
    let features = &server.features;
    filter_ui(ui, &mut sidebar.resource_filter.text, "uri, name or title");
    if !state_ui(ui, server, "resources", &features.resources, actions) {
        return;
    }
    problems_ui(ui, features);
    let templates = list_of(&features.templates);
    let resources = list_of(&features.resources);
    let filter = &mut sidebar.resource_filter;
    let template_rows: Vec<usize> = templates
        .map(|list| {
            filter
                .matching(list, |item, needle| item.matches(needle))
                .to_vec()
        })
        .unwrap_or_default();
    let resource_rows: Vec<usize> = resources
        .map(|list| {
            filter
                .matching(list, |item, needle| item.matches(needle))
                .to_vec()
        })
        .unwrap_or_default();
    let (total_templates, total_resources) = (
        templates.map_or(0, |list| list.items.len()),
        resources.map_or(0, |list| list.items.len()),
    );
    ui.horizontal(|ui| {
        ui.label(count_words(
            (resource_rows.len(), total_resources),
            "resource",
        ));
        ui.label(count_words(
            (template_rows.len(), total_templates),
            "template",
        ));
        if super::refresh_button(ui).clicked() {
            actions.push(workbench::FeatureAction::Refresh(server.id).into());
        }
    });
    ui.separator();
    let count = template_rows.len() + resource_rows.len();
    let row_at = |row: usize| -> Option<Row> {
        if let Some(&index) = template_rows.get(row) {
            let template = templates?.items.get(index)?;
            let mut hover = format!("{}\n{}", template.display_name(), template.uri_template);
            if let Some(description) = &template.description {
                hover.push_str(&format!("\n{description}"));
            }
            return Some(Row {
                label: template.display_name().to_owned(),
                hover,
                picks: PickedFeature::Template(template.uri_template.clone()),
                icon: Some((
                    icons::ICON_DATA_OBJECT,
                    "a resource template: fill in its variables",
                )),
                subscribed: false,
                updates: 0,
            });
        }
        let index = *resource_rows.get(row - template_rows.len())?;
        let resource = resources?.items.get(index)?;
        Some(Row {
            label: resource.display_name().to_owned(),
            hover: resource_hover(resource),
            picks: PickedFeature::Resource(resource.uri.clone()),
            icon: None,
            subscribed: features.subscribed.contains(&resource.uri),
            updates: features.updates.get(&resource.uri).copied().unwrap_or(0),
        })
    };
    list_ui(ui, server, count, row_at, actions);
}

pub fn prompts_section(
    model: &Model,
    sidebar: &mut SidebarState,
    ui: &mut egui::Ui,
    actions: &mut Vec<Action>,
) {
    let Some(server) = model.selected_server() else {
        return;
    };
    let features = &server.features;
    filter_ui(
        ui,
        &mut sidebar.prompt_filter.text,
        "name, title or description",
    );
    if !state_ui(ui, server, "prompts", &features.prompts, actions) {
        return;
    }
    problems_ui(ui, features);
    let Some(prompts) = list_of(&features.prompts) else {
        return;
    };
    let rows = sidebar
        .prompt_filter
        .matching(prompts, |item, needle| item.matches(needle))
        .to_vec();
    ui.horizontal(|ui| {
        ui.label(count_words((rows.len(), prompts.items.len()), "prompt"));
        if super::refresh_button(ui).clicked() {
            actions.push(workbench::FeatureAction::Refresh(server.id).into());
        }
    });
    ui.separator();
    let row_at = |row: usize| -> Option<Row> {
        let prompt = prompts.items.get(*rows.get(row)?)?;
        let mut hover = prompt.display_name().to_owned();
        if prompt.display_name() != prompt.name {
            hover.push_str(&format!("\n{}", prompt.name));
        }
        if let Some(description) = &prompt.description {
            hover.push_str(&format!("\n{description}"));
        }
        if !prompt.arguments.is_empty() {
            let names: Vec<String> = prompt
                .arguments
                .iter()
                .map(|argument| {
                    format!(
                        "{}{}",
                        argument.name,
                        if argument.required { "*" } else { "" }
                    )
                })
                .collect();
            hover.push_str(&format!("\narguments: {}", names.join(", ")));
        }
        Some(Row {
            label: prompt.display_name().to_owned(),
            hover,
            picks: PickedFeature::Prompt(prompt.name.clone()),
            icon: None,
            subscribed: false,
            updates: 0,
        })
    };
    list_ui(ui, server, rows.len(), row_at, actions);
}

fn list_of<T>(list: &FeatureList<T>) -> Option<&Arc<ListedItems<T>>> {
    match list {
        FeatureList::Listed(listed) => Some(listed),
        _ => None,
    }
}

fn filter_ui(ui: &mut egui::Ui, text: &mut String, hint: &str) {
    let label = ui.label("Filter");
    ui.add(
        egui::TextEdit::singleline(text)
            .hint_text(hint)
            .desired_width(f32::INFINITY),
    )
    .labelled_by(label.id);
}

/// "12 resources", or "3 of 12 resources" when filtered.
fn count_words((shown, total): (usize, usize), noun: &str) -> String {
    let plural = if total == 1 { "" } else { "s" };
    if shown == total {
        format!("{total} {noun}{plural}")
    } else {
        format!("{shown} of {total} {noun}{plural}")
    }
}

/// Where the list stands when it is not listed yet; `true` when it is.
fn state_ui<T>(
    ui: &mut egui::Ui,
    server: &ServerState,
    noun: &str,
    list: &FeatureList<T>,
    actions: &mut Vec<Action>,
) -> bool {
    match list {
        FeatureList::Listed(_) => true,
        FeatureList::Listing => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("Listing {noun}…"));
            });
            false
        }
        FeatureList::Failed(error) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("Listing {noun} failed: {error}"),
            );
            if ui.button("Try again").clicked() {
                actions.push(workbench::FeatureAction::Refresh(server.id).into());
            }
            false
        }
        FeatureList::NotAsked if !server.is_connected() => {
            ui.weak(format!("Connect the server to see its {noun}"));
            false
        }
        FeatureList::NotAsked => {
            ui.add(
                egui::Label::new(
                    egui::RichText::new(format!(
                        "This server does not declare {noun} (its capabilities have no \
                         \"{noun}\")"
                    ))
                    .weak(),
                )
                .wrap(),
            );
            false
        }
    }
}

fn problems_ui(ui: &mut egui::Ui, features: &workbench::server_features::ServerFeatures) {
    let lists = [
        list_of(&features.resources).map(|list| &list.problems),
        list_of(&features.templates).map(|list| &list.problems),
        list_of(&features.prompts).map(|list| &list.problems),
    ];
    for problem in lists.into_iter().flatten().flatten() {
        crate::ui::widgets::warning(ui, problem);
    }
}

fn resource_hover(
    resource: &toolscope_core::session::requests::feature_items::ResourceItem,
) -> String {
    let mut lines = vec![resource.display_name().to_owned(), resource.uri.clone()];
    if let Some(mime) = &resource.mime_type {
        lines.push(mime.clone());
    }
    if let Some(size) = resource.size {
        lines.push(format!("{size} bytes"));
    }
    if let Some(ttl) = resource.ttl_ms {
        lines.push(format!("valid for {ttl} ms (ttlMs)"));
    }
    if let Some(scope) = &resource.cache_scope {
        lines.push(format!("cacheScope {scope}"));
    }
    if let Some(description) = &resource.description {
        lines.push(description.clone());
    }
    lines.join("\n")
}

fn list_ui(
    ui: &mut egui::Ui,
    server: &ServerState,
    count: usize,
    row_at: impl Fn(usize) -> Option<Row>,
    actions: &mut Vec<Action>,
) {
    let features = &server.features;
    let picked = features
        .resource_view
        .picked
        .as_ref()
        .into_iter()
        .chain(features.prompt_view.picked.as_ref());
    let mut chosen = None;
    egui::ScrollArea::vertical()
        .auto_shrink(false)
        .show_rows(ui, ROW_HEIGHT, count, |ui, rows| {
            for index in rows {
                let Some(row) = row_at(index) else { continue };
                ui.push_id(index, |ui| {
                    ui.set_height(ROW_HEIGHT);
                    if row_ui(ui, &row, picked.clone().any(|picked| *picked == row.picks)) {
                        chosen = Some(row.picks.clone());
                    }
                });
            }
        });
    if let Some(picks) = chosen {
        actions.push(workbench::FeatureAction::Pick(server.id, Some(picks)).into());
    }
}

fn row_ui(ui: &mut egui::Ui, row: &Row, selected: bool) -> bool {
    ui.horizontal_centered(|ui| {
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if row.updates > 0 {
                let color = ui.visuals().warn_fg_color;
                let words = format!(
                    "notifications/resources/updated arrived {} time(s)",
                    row.updates
                );
                ui.colored_label(color, row.updates.to_string())
                    .on_hover_text(&words);
                ui.label(icons::ICON_NEW_RELEASES.rich_text().color(color))
                    .on_hover_text(words);
            }
            if row.subscribed {
                ui.label(icons::ICON_NOTIFICATIONS_ACTIVE.rich_text())
                    .on_hover_text("Subscribed: updates are shown as they arrive");
            }
            ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                if let Some((icon, words)) = row.icon {
                    ui.label(icon.rich_text().color(ui.visuals().hyperlink_color))
                        .on_hover_text(words);
                }
                ui.add(egui::Button::selectable(selected, &row.label).truncate())
                    .on_hover_text(&row.hover)
                    .clicked()
            })
            .inner
        })
        .inner
    })
    .inner
}
