//! How the window is laid out, as the user left it: saved with the settings, so the sidebar,
//! the request column, the split between the two result panes and the zoom survive a restart.
//! Plain numbers in logical points; the window decides what they mean.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Layout {
    /// Whether the sidebar (servers and their tools) is shown.
    pub sidebar_open: bool,
    pub sidebar_width: f32,
    /// The sidebar's width while it shows the history (a table, wider than the tool list).
    pub history_width: f32,
    /// Whether the request column (arguments, description, schemas) is shown.
    pub request_open: bool,
    pub request_width: f32,
    /// The content pane's share of the width (or height, when stacked) of the two panes.
    pub pane_split: f32,
    /// The window's zoom factor (Ctrl +, Ctrl −, Ctrl 0).
    pub zoom: f32,
    /// Light, dark, or whatever the system uses.
    pub appearance: Appearance,
    /// The analysis shows only its sentence and chips (a chip clicked still opens its detail).
    pub analysis_folded: bool,
}

/// The colour scheme the user picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Appearance {
    /// Follow the system's light or dark setting.
    #[default]
    System,
    Light,
    Dark,
}

impl Appearance {
    /// The next choice of the top bar's switch: system, light, dark, system…
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Appearance::System => Appearance::Light,
            Appearance::Light => Appearance::Dark,
            Appearance::Dark => Appearance::System,
        }
    }
}

impl Layout {
    pub const DEFAULT_SPLIT: f32 = 0.5;
    pub const MIN_ZOOM: f32 = 0.5;
    pub const MAX_ZOOM: f32 = 3.0;

    /// The same layout with every number in a usable range (a hand-edited settings file may
    /// hold anything).
    #[must_use]
    pub fn sanitized(self) -> Self {
        let default = Self::default();
        let finite = |value: f32, fallback: f32| if value.is_finite() { value } else { fallback };
        Self {
            sidebar_width: finite(self.sidebar_width, default.sidebar_width).clamp(160.0, 600.0),
            history_width: finite(self.history_width, default.history_width).clamp(280.0, 1200.0),
            request_width: finite(self.request_width, default.request_width).clamp(220.0, 900.0),
            pane_split: finite(self.pane_split, Self::DEFAULT_SPLIT).clamp(0.1, 0.9),
            zoom: finite(self.zoom, 1.0).clamp(Self::MIN_ZOOM, Self::MAX_ZOOM),
            ..self
        }
    }
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            sidebar_open: true,
            sidebar_width: 200.0,
            history_width: 520.0,
            request_open: true,
            request_width: 226.0,
            pane_split: Self::DEFAULT_SPLIT,
            zoom: 1.0,
            appearance: Appearance::System,
            analysis_folded: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_numbers_from_a_settings_file_become_usable() {
        let odd = Layout {
            sidebar_width: f32::NAN,
            request_width: 5.0,
            pane_split: 7.0,
            zoom: f32::INFINITY,
            ..Layout::default()
        }
        .sanitized();
        assert_eq!(odd.sidebar_width, Layout::default().sidebar_width);
        assert_eq!(odd.request_width, 220.0);
        assert_eq!(odd.pane_split, 0.9);
        assert_eq!(odd.zoom, 1.0);
        let partial: Layout = serde_json::from_str(r#"{"sidebar_open": false}"#).unwrap();
        assert!(!partial.sidebar_open);
        assert_eq!(partial.pane_split, Layout::DEFAULT_SPLIT);
    }
}
