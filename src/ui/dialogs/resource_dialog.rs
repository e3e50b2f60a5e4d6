//! The resource a result links to, as read from its server: each content with its MIME type;
//! text shown (cut when very long), images drawn, blobs by size with Save….

use egui::RichText;

use crate::ui::{actions::Action, image_textures};
use crate::workbench::{self, Model, ResourceState};
use toolscope_core::session::requests::resources::ResourceBody;

/// Longest text shown; the rest is left to Save… (a resource may be megabytes).
const MAX_SHOWN_TEXT: usize = 100_000;

/// Texture keys of resource images, apart from those of call records.
const RESOURCE_IMAGE_KEYS: u64 = 1 << 62;

pub fn ui(model: &Model, ctx: &egui::Context, actions: &mut Vec<Action>) {
    let Some(opened) = model.opened_resource() else {
        return;
    };
    let mut open = true;
    egui::Window::new("Resource")
        .id(egui::Id::unique("opened_resource"))
        .open(&mut open)
        .default_width(560.0)
        .default_height(480.0)
        .resizable(true)
        .show(ctx, |ui| {
            ui.add(egui::Label::new(RichText::new(&opened.uri).monospace()).wrap());
            let server = model
                .server(opened.server)
                .map_or("its server", |server| server.name.as_str());
            ui.label(RichText::new(format!("read from {server} with resources/read")).weak());
            ui.separator();
            match &opened.state {
                ResourceState::Reading => {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("Reading…");
                    });
                }
                ResourceState::Failed(error) => {
                    ui.colored_label(ui.visuals().error_fg_color, error);
                }
                ResourceState::Read(contents) if contents.is_empty() => {
                    ui.label("The resource has no contents.");
                }
                ResourceState::Read(contents) => {
                    egui::ScrollArea::vertical()
                        .auto_shrink([false, true])
                        .show(ui, |ui| {
                            for (index, read) in contents.iter().enumerate() {
                                content_ui(ui, opened.generation, index, read, actions);
                            }
                        });
                }
            }
        });
    if !open {
        actions.push(workbench::ResourceAction::Close.into());
    }
}

fn content_ui(
    ui: &mut egui::Ui,
    generation: u64,
    index: usize,
    read: &workbench::ReadContent,
    actions: &mut Vec<Action>,
) {
    let content = &read.content;
    let mime = content.mime_type.as_deref().unwrap_or("no mimeType");
    let heading = ui.label(RichText::new(format!("{} · {mime}", content.uri)).strong());
    match &content.body {
        ResourceBody::Text { text } => {
            // Shown read-only in place: no copy of the text each frame.
            let mut shown = toolscope_core::text_util::cut_at_char_boundary(text, MAX_SHOWN_TEXT);
            ui.add(
                egui::TextEdit::multiline(&mut shown)
                    .code_editor()
                    .interactive(true)
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(heading.id);
            if shown.len() < text.len() {
                ui.label(
                    RichText::new(format!(
                        "The first {MAX_SHOWN_TEXT} bytes of {} are shown.",
                        text.len()
                    ))
                    .weak(),
                );
            }
            if ui.button("Copy").clicked() {
                ui.ctx().copy_text(text.clone());
            }
        }
        ResourceBody::Blob { .. } => {
            if let Some(Ok(image)) = &read.image {
                let texture = image_textures::texture(
                    ui.ctx(),
                    (RESOURCE_IMAGE_KEYS + generation, index),
                    image,
                );
                let width = ui.available_width().min(image.width as f32);
                let scale = width / image.width.max(1) as f32;
                ui.image((texture.id(), egui::vec2(width, image.height as f32 * scale)));
                if image.was_scaled() {
                    ui.label(
                        RichText::new(format!(
                            "shown at {}×{} of {}×{}",
                            image.width, image.height, image.original_width, image.original_height
                        ))
                        .weak(),
                    );
                }
            } else if let Some(Err(problem)) = &read.image {
                ui.colored_label(ui.visuals().warn_fg_color, problem.to_string());
            }
            if let Some(bytes) = &read.bytes {
                ui.horizontal(|ui| {
                    ui.label(format!("{} bytes", bytes.len()));
                    if ui.button("Save…").clicked() {
                        let name = content
                            .uri
                            .rsplit('/')
                            .next()
                            .filter(|name| !name.is_empty())
                            .unwrap_or("resource")
                            .to_owned();
                        actions
                            .push(crate::ui::files::FileRequest::media(bytes.clone(), name).into());
                    }
                });
            }
        }
        ResourceBody::Malformed { reason } => {
            ui.colored_label(ui.visuals().warn_fg_color, format!("Unreadable: {reason}"));
        }
    }
    if let Some(problem) = &read.problem {
        ui.colored_label(ui.visuals().warn_fg_color, problem);
    }
    ui.separator();
}
