//! The window's own file dialog, for where the platform's does not answer (no desktop portal,
//! as under a bare X server): a folder path, its entries, a file name, and the places people
//! keep files. Folders are read on a thread; nothing here waits on the disk.

use std::path::{Path, PathBuf};

use egui_material_icons::icons;

use super::{
    FileKind, FileRequest,
    listing::{Listing, PendingListing},
};
use crate::ui::actions::Action;

pub struct FileChooser {
    request: FileRequest,
    /// The folder field as typed.
    folder_field: String,
    /// The folder listed (or being listed).
    folder: PathBuf,
    name: String,
    listing: Option<Listing>,
    pending: Option<PendingListing>,
    /// A path to choose once its folder is listed (typed with a folder of its own).
    choose_when_listed: Option<PathBuf>,
    /// An existing file the person is asked to replace.
    confirm_replace: Option<PathBuf>,
    /// A file was chosen: the dialog closes.
    done: bool,
    /// Wakes the window when a folder has been read.
    ctx: egui::Context,
    /// Home, Documents… (read once, when the dialog opens).
    places: Vec<(&'static str, PathBuf)>,
}

impl FileChooser {
    /// Opens on `start` (the last folder used; else, or when it is gone, the documents folder).
    pub fn new(request: FileRequest, start: Option<PathBuf>, ctx: &egui::Context) -> Self {
        let folder = start
            .or_else(toolscope_core::settings::documents_dir)
            .unwrap_or_else(|| PathBuf::from("/"));
        let mut chooser = Self {
            folder_field: folder.display().to_string(),
            name: request.suggested_name.clone(),
            request,
            folder: folder.clone(),
            listing: None,
            pending: None,
            choose_when_listed: None,
            confirm_replace: None,
            done: false,
            ctx: ctx.clone(),
            places: toolscope_core::settings::places(),
        };
        chooser.list(folder, true);
        chooser
    }

    /// Draws the dialog; false once it is closed. A choice is an action.
    pub fn draw(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) -> bool {
        self.take_listing(actions);
        let mut close = false;
        // Modal: nothing else in the window changes while a file is being chosen.
        let modal = egui::Modal::new(egui::Id::unique("file_chooser")).show(ctx, |ui| {
            ui.set_width(460.0_f32.min(ctx.content_rect().width() - 48.0));
            ui.heading(self.request.title);
            self.folder_ui(ui);
            self.places_ui(ui);
            self.entries_ui(ui, actions);
            if self.request.kind != FileKind::Folder {
                self.name_ui(ui, actions);
            }
            ui.add(egui::Label::new(egui::RichText::new(self.request.hint).weak()).wrap());
            self.buttons_ui(ui, actions, &mut close);
        });
        // Escape or a click beside it closes it, as it does every dialog.
        !(close || self.done || modal.should_close())
    }

    /// Reads `folder` off the UI thread.
    fn list(&mut self, folder: PathBuf, fall_back: bool) {
        let request = self.request.clone();
        let ctx = self.ctx.clone();
        self.folder = folder.clone();
        self.folder_field = folder.display().to_string();
        self.confirm_replace = None;
        self.pending = Some(PendingListing::start(
            folder,
            fall_back,
            move |name| request.lists(name),
            move || ctx.request_repaint(),
        ));
    }

    fn take_listing(&mut self, actions: &mut Vec<Action>) {
        let Some(listing) = self.pending.as_ref().and_then(PendingListing::take) else {
            return;
        };
        self.pending = None;
        self.folder = listing.folder.clone();
        self.folder_field = listing.folder.display().to_string();
        let readable = listing.problem.is_none();
        self.listing = Some(listing);
        // Its folder is listed now: `choose` decides (a folder that cannot be read shows why).
        if let Some(path) = self.choose_when_listed.take()
            && readable
        {
            self.choose(path, actions);
        }
    }

    fn folder_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let label = ui.label("Folder");
            let up = self.folder.parent().map(Path::to_owned);
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut self.folder_field)
                        .desired_width(ui.available_width() - 40.0),
                )
                .labelled_by(label.id);
            if field.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter)) {
                let typed = expand_home(self.folder_field.trim());
                self.list(typed, false);
            }
            let up_button = ui
                .add_enabled(
                    up.is_some(),
                    egui::Button::new(icons::ICON_ARROW_UPWARD.rich_text()),
                )
                .on_hover_text("Up one folder");
            up_button.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, "Up"));
            if up_button.clicked()
                && let Some(up) = up
            {
                self.list(up, false);
            }
        });
    }

    /// The places people keep files, one click away.
    fn places_ui(&mut self, ui: &mut egui::Ui) {
        let mut chosen = None;
        ui.horizontal_wrapped(|ui| {
            for (name, folder) in &self.places {
                if ui
                    .add(egui::Button::selectable(*folder == self.folder, *name))
                    .on_hover_text(folder.display().to_string())
                    .clicked()
                {
                    chosen = Some(folder.clone());
                }
            }
        });
        if let Some(folder) = chosen {
            self.list(folder, false);
        }
    }

    fn entries_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        // The list gives up height first where the window is short (900×600 at 1.5×): the
        // rest of the dialog takes about 330 points.
        let list_height = (ui.ctx().content_rect().height() - 330.0).clamp(80.0, 220.0);
        let Some(listing) = &self.listing else {
            ui.add_sized([ui.available_width(), list_height], egui::Spinner::new());
            return;
        };
        if let Some(problem) = &listing.problem {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{} {problem}", listing.folder.display()),
            );
            return;
        }
        let row_height = ui.spacing().interact_size.y;
        let mut enter = None;
        let mut pick = None;
        let mut choose = None;
        egui::Frame::group(ui.style()).show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt(("file_chooser_entries", &listing.folder))
                .max_height(list_height)
                .min_scrolled_height(list_height)
                .auto_shrink([false, false])
                .show_rows(ui, row_height, listing.entries.len(), |ui, rows| {
                    for entry in &listing.entries[rows] {
                        let icon = if entry.is_folder {
                            icons::ICON_FOLDER
                        } else {
                            icons::ICON_DESCRIPTION
                        };
                        let picked = !entry.is_folder && self.name == entry.shown;
                        let row = ui.add(
                            egui::Button::selectable(
                                picked,
                                (icon.rich_text(), format!(" {}", entry.shown)),
                            )
                            .truncate(),
                        );
                        row.widget_info(|| {
                            egui::WidgetInfo::labeled(egui::Role::Button, true, &entry.shown)
                        });
                        if entry.is_folder && row.clicked() {
                            enter = Some(listing.folder.join(&entry.name));
                        } else if row.double_clicked() {
                            choose = Some(listing.folder.join(&entry.name));
                        } else if row.clicked() {
                            pick = Some(entry.shown.clone());
                        }
                    }
                });
        });
        // Always one line, so the dialog keeps its height from folder to folder.
        let listed = match listing.entries.len() {
            0 => "Nothing to list".to_owned(),
            1 => "1 entry".to_owned(),
            n => format!("{n} entries"),
        };
        ui.weak(match listing.left_out {
            0 => listed,
            n => format!(
                "{listed} · {n} other entr{} not listed (hidden, or not {})",
                if n == 1 { "y" } else { "ies" },
                self.filter_names(),
            ),
        });
        if let Some(folder) = enter {
            self.list(folder, false);
        }
        if let Some(name) = pick {
            self.name = name;
            self.confirm_replace = None;
        }
        if let Some(path) = choose {
            self.choose(path, actions);
        }
    }

    fn filter_names(&self) -> String {
        if self.request.filters.is_empty() {
            return "a file".into();
        }
        self.request
            .filters
            .iter()
            .flat_map(|(_, extensions)| extensions.iter().map(|e| format!(".{e}")))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn name_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>) {
        ui.horizontal(|ui| {
            let label = ui.label("File name");
            let field = ui
                .add(egui::TextEdit::singleline(&mut self.name).desired_width(f32::INFINITY))
                .labelled_by(label.id);
            if field.changed() {
                self.confirm_replace = None;
            }
            if field.lost_focus()
                && ui.input(|input| input.key_pressed(egui::Key::Enter))
                && let Some(path) = self.typed_path()
            {
                self.choose(path, actions);
            }
        });
    }

    fn buttons_ui(&mut self, ui: &mut egui::Ui, actions: &mut Vec<Action>, close: &mut bool) {
        if let Some(path) = self.confirm_replace.clone() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("{} exists already.", path.display()),
            );
            ui.horizontal(|ui| {
                if ui.button("Replace it").clicked() {
                    self.chosen(path, actions);
                }
                if ui.button("Keep it").clicked() {
                    self.confirm_replace = None;
                }
            });
            return;
        }
        ui.horizontal(|ui| {
            let (verb, target) = match self.request.kind {
                FileKind::Save | FileKind::Append => ("Save", self.typed_path()),
                FileKind::Open => ("Open", self.typed_path()),
                FileKind::Folder => ("Choose this folder", Some(self.folder.clone())),
            };
            let ready = target.is_some() && self.pending.is_none();
            if ui.add_enabled(ready, egui::Button::new(verb)).clicked()
                && let Some(path) = target
            {
                self.choose(path, actions);
            }
            if ui.button("Cancel").clicked() {
                *close = true;
            }
            if self.pending.is_some() {
                ui.spinner();
            }
        });
    }

    /// The file name field as a path: in the listed folder, or as typed when it names a
    /// folder of its own (absolute, `~/…`, or `sub/name`).
    fn typed_path(&self) -> Option<PathBuf> {
        let typed = self.name.trim();
        (!typed.is_empty()).then(|| self.folder.join(expand_home(typed)))
    }

    /// Chooses `path`, once its folder is known to hold no file by that name (saving), else
    /// after asking.
    fn choose(&mut self, path: PathBuf, actions: &mut Vec<Action>) {
        let parent = path.parent().map(Path::to_owned).unwrap_or_default();
        let listed = self
            .listing
            .as_ref()
            .filter(|listing| listing.problem.is_none() && listing.folder == parent);
        match listed {
            Some(listing) => {
                let exists = path
                    .file_name()
                    .is_some_and(|name| listing.file_names.contains(name));
                if self.request.kind == FileKind::Save && exists {
                    self.confirm_replace = Some(path);
                } else {
                    self.chosen(path, actions);
                }
            }
            // Typed with a folder of its own: list that folder, then decide.
            None if self.request.kind != FileKind::Folder => {
                if let Some(name) = path.file_name() {
                    self.name = name.to_string_lossy().into_owned();
                }
                self.choose_when_listed = Some(path);
                self.list(parent, false);
            }
            None => self.chosen(path, actions),
        }
    }

    fn chosen(&mut self, path: PathBuf, actions: &mut Vec<Action>) {
        actions.push(Action::FileChosen {
            purpose: self.request.purpose.clone(),
            path,
        });
        self.choose_when_listed = None;
        self.done = true;
    }
}

/// `~` and `~/…` as the home folder.
fn expand_home(typed: &str) -> PathBuf {
    let home = toolscope_core::settings::home_dir;
    if typed == "~" {
        return home().unwrap_or_else(|| PathBuf::from(typed));
    }
    if let Some(rest) = typed.strip_prefix("~/")
        && let Some(home) = home()
    {
        return home.join(rest);
    }
    PathBuf::from(typed)
}
