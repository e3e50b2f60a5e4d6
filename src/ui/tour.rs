//! The guided tour of the demo server (`toolscope --tour`, the top bar's Tour button, or the
//! offer on first start). Each step selects a tool, fills in its arguments, calls it, then
//! outlines the part of the window that shows the lesson and says what to notice, with the
//! Python that would produce the same result. It can be left at any step.

use egui::{Align2, Color32, Id, LayerId, Order, Rect, Stroke, StrokeKind};

use super::{
    actions::Action,
    request_state::RequestState,
    result_state::{ResultState, ResultTab},
};
use crate::workbench::{self, CallState, DEMO_SERVER, Model, ToolKey};
use toolscope_core::demo_server::lessons::{self, Focus, Lesson};

/// Where the tour is.
#[derive(Debug)]
pub struct Tour {
    step: usize,
    phase: Phase,
    lessons: Vec<Lesson>,
    /// What the last frame outlined (for tests and automation).
    outlined: Option<Rect>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for the demo server's tools, then the step's call is sent.
    Starting,
    /// The call is on its way.
    Calling,
    /// The result is there: point at it.
    Showing,
}

impl Default for Tour {
    fn default() -> Self {
        Self {
            step: 0,
            phase: Phase::Starting,
            lessons: lessons::lessons(),
            outlined: None,
        }
    }
}

impl Tour {
    /// The part of the window the last frame outlined, if any.
    pub fn outlined(&self) -> Option<Rect> {
        self.outlined
    }

    fn go_to(&mut self, step: usize) {
        self.step = step.min(self.lessons.len().saturating_sub(1));
        self.phase = Phase::Starting;
    }
}

/// Drives the tour one frame and draws its card and outline; `slot` is cleared when the user
/// leaves or finishes it. The tour fills the request's form and reads where the result was
/// drawn.
pub fn ui(
    model: &Model,
    slot: &mut Option<Tour>,
    (request, result): (&mut RequestState, &mut ResultState),
    ctx: &egui::Context,
    actions: &mut Vec<Action>,
) {
    let Some(mut tour) = slot.take() else {
        return;
    };
    let Some(lesson) = tour.lessons.get(tour.step).cloned() else {
        return;
    };
    let key = advance(model, (request, result), &mut tour, &lesson, actions);
    // Only while the lesson's own result is shown: once the person calls another tool (the
    // chaining lesson asks for it), that result is not the lesson's evidence.
    let lessons_result = model
        .selected_tool()
        .is_some_and(|(server, tool)| server.id == DEMO_SERVER && tool.name == lesson.tool);
    tour.outlined = (tour.phase == Phase::Showing && lessons_result)
        .then(|| focus_rect(result, lesson.focus))
        .flatten();
    if let Some(target) = tour.outlined {
        outline(ctx, target);
    }
    let mut keep = true;
    let count = tour.lessons.len();
    let card = egui::Window::new("Guided tour")
        .id(Id::unique("guided_tour"))
        .collapsible(false);
    // Over the pane the lesson is not about, so the evidence stays in view (an output schema
    // opened in the request column, on the left, included); else at the bottom left.
    let card = match card_place(result, lesson.focus) {
        Some(bottom_left) => card.pivot(Align2::LEFT_BOTTOM).fixed_pos(bottom_left),
        None => card.anchor(Align2::LEFT_BOTTOM, [16.0, -16.0]),
    };
    card.resizable(false).default_width(380.0).show(ctx, |ui| {
        ui.set_max_width(380.0);
        ui.weak(format!("Step {} of {count}", tour.step + 1));
        ui.heading(lesson.title);
        match tour.phase {
            Phase::Starting if !demo_ready(model) => {
                let connecting = model.server(DEMO_SERVER).is_some_and(|server| {
                    matches!(
                        server.status,
                        workbench::ConnectionStatus::Connecting { .. }
                    )
                });
                if connecting {
                    ui.weak("Waiting for the demo server…");
                } else {
                    ui.label("The tour needs the built-in demo server, which is not connected.");
                    if ui.button("Connect the demo server").clicked() {
                        actions.push(workbench::ServerAction::Connect(DEMO_SERVER).into());
                    }
                }
            }
            Phase::Starting if key.is_none() => {
                ui.label(format!(
                    "The demo server has no tool {}: this step cannot run. Go on to the next.",
                    lesson.tool
                ));
            }
            Phase::Starting | Phase::Calling => {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.weak(format!("Calling {}…", lesson.tool));
                });
            }
            Phase::Showing => {
                ui.add(egui::Label::new(lesson.notice).wrap());
            }
        }
        if let Some(python) = lessons::python_equivalent(lesson.tool) {
            super::widgets::code_section(
                ui,
                "The same tool in Python (official SDK)",
                ("tour_python", tour.step),
                python,
            );
        }
        ui.separator();
        ui.horizontal(|ui| {
            if ui
                .add_enabled(tour.step > 0, egui::Button::new("Back"))
                .clicked()
            {
                tour.go_to(tour.step - 1);
            }
            let last = tour.step + 1 == count;
            if ui.button(if last { "Finish" } else { "Next" }).clicked() {
                if last {
                    keep = false;
                } else {
                    tour.go_to(tour.step + 1);
                }
            }
            if ui.button("Leave the tour").clicked() {
                keep = false;
            }
        });
    });
    if keep {
        *slot = Some(tour);
    }
}

fn demo_ready(model: &Model) -> bool {
    model
        .server(DEMO_SERVER)
        .is_some_and(|server| server.is_connected() && server.catalog.is_some())
}

/// Sends the step's call once the demo server is ready, and notices when it is answered.
/// Returns the step's tool, or `None` when the demo server does not have it.
fn advance(
    model: &Model,
    (request, result): (&mut RequestState, &mut ResultState),
    tour: &mut Tour,
    lesson: &Lesson,
    actions: &mut Vec<Action>,
) -> Option<ToolKey> {
    let key = ToolKey::new(DEMO_SERVER, lesson.tool.to_owned());
    match tour.phase {
        Phase::Starting => {
            if !demo_ready(model) {
                return Some(key);
            }
            let server = model.server(DEMO_SERVER)?;
            let catalog = server.catalog.as_ref()?;
            let index = catalog
                .tools
                .iter()
                .position(|tool| tool.name == lesson.tool)?;
            let tool = &catalog.tools[index];
            let arguments = lesson.arguments.as_object().cloned().unwrap_or_default();
            request.editor(model, &key, tool).set_arguments(&arguments);
            if lesson.shows_output_schema {
                request.open_output_schema_of = Some(key.clone());
            }
            actions.push(workbench::ServerAction::Select(DEMO_SERVER).into());
            actions.push(
                workbench::CallAction::SelectTool {
                    server: DEMO_SERVER,
                    index,
                }
                .into(),
            );
            actions.push(
                workbench::CallAction::Call {
                    tool: key.clone(),
                    arguments,
                    force: false,
                }
                .into(),
            );
            result.tab = ResultTab::Result;
            tour.phase = Phase::Calling;
        }
        Phase::Calling => {
            // Done or failed; the record itself may be compacted if the user looked elsewhere.
            let answered = model
                .run(&key)
                .is_some_and(|run| matches!(run.call, CallState::Done | CallState::Failed(_)));
            if answered {
                tour.phase = Phase::Showing;
            }
        }
        Phase::Showing => {}
    }
    Some(key)
}

/// Where the card goes for a lesson about one pane: the other pane's bottom left corner.
fn card_place(result: &ResultState, focus: Focus) -> Option<egui::Pos2> {
    let panes = result.panes?;
    let other = match focus {
        Focus::Structured => panes.first,
        Focus::Content => panes.second,
        Focus::BothPanes | Focus::Analysis => return None,
    };
    Some(other.left_bottom() + egui::vec2(8.0, -8.0))
}

/// The rectangle of the part a lesson is about, as drawn this frame.
fn focus_rect(result: &ResultState, focus: Focus) -> Option<Rect> {
    let panes = result.panes?;
    Some(match focus {
        Focus::Content => panes.first,
        Focus::Structured => panes.second,
        Focus::BothPanes => panes.first.union(panes.second),
        Focus::Analysis => {
            let area = result.area?;
            Rect::from_min_max(area.min, egui::pos2(area.max.x, panes.first.min.y))
        }
    })
}

/// A bright outline around `rect`, above everything else.
fn outline(ctx: &egui::Context, rect: Rect) {
    let painter = ctx.layer_painter(LayerId::new(Order::Foreground, Id::unique("tour_outline")));
    let color = super::theme::palette(&ctx.global_style().visuals).info;
    painter.rect_stroke(
        rect.expand(3.0),
        6.0,
        Stroke::new(3.0, color),
        StrokeKind::Outside,
    );
    painter.rect_stroke(
        rect.expand(7.0),
        9.0,
        Stroke::new(
            4.0,
            Color32::from_rgba_unmultiplied(color.r(), color.g(), color.b(), 60),
        ),
        StrokeKind::Outside,
    );
}
