//! Two text columns printed beside each other, wrapped to the terminal width.

use unicode_segmentation::UnicodeSegmentation as _;
use unicode_width::UnicodeWidthStr as _;

use toolscope_core::text_util::terminal_safe;

/// The most lines either column shows; the rest is summarised.
pub const MAX_LINES: usize = 200;

/// The terminal width from `COLUMNS`, or 120.
pub fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|columns| columns.parse().ok())
        .filter(|&width: &usize| width >= 40)
        .unwrap_or(120)
}

/// Renders `left` and `right` under their titles, each in half the width.
pub fn render(
    left_title: &str,
    left: &[String],
    right_title: &str,
    right: &[String],
    width: usize,
) -> String {
    let column = (width.saturating_sub(3) / 2).max(16);
    let left = wrap_all(left, column);
    let right = wrap_all(right, column);
    let mut out = String::new();
    push_row(&mut out, left_title, right_title, column);
    let rule = "─".repeat(column);
    push_row(&mut out, &rule, &rule, column);
    for row in 0..left.len().max(right.len()) {
        let l = left.get(row).map_or("", String::as_str);
        let r = right.get(row).map_or("", String::as_str);
        push_row(&mut out, l, r, column);
    }
    out
}

fn push_row(out: &mut String, left: &str, right: &str, column: usize) {
    out.push_str(left);
    out.push_str(&" ".repeat(column.saturating_sub(display_width(left))));
    out.push_str(" │ ");
    out.push_str(right);
    out.push('\n');
}

fn wrap_all(lines: &[String], column: usize) -> Vec<String> {
    let mut wrapped = Vec::new();
    for line in lines {
        wrap_line(line, column, &mut wrapped);
    }
    if wrapped.len() > MAX_LINES {
        let hidden = wrapped.len() - MAX_LINES;
        wrapped.truncate(MAX_LINES);
        wrapped.push(format!("… {hidden} more lines (--json prints everything)"));
    }
    wrapped
}

/// Breaks a line of server text into pieces of at most `column` display cells (CJK counts
/// double). Controls are made visible first; a piece never ends inside a grapheme or inside
/// the visible form of a control (`\u{1b}`).
fn wrap_line(line: &str, column: usize, out: &mut Vec<String>) {
    let mut piece = String::new();
    let mut used = 0;
    for grapheme in line.graphemes(true) {
        let unit = if grapheme == "\t" {
            " ".into()
        } else {
            terminal_safe(grapheme)
        };
        let w = unit.width();
        if used + w > column && !piece.is_empty() {
            out.push(std::mem::take(&mut piece));
            used = 0;
        }
        piece.push_str(&unit);
        used += w;
    }
    out.push(piece);
}

fn display_width(text: &str) -> usize {
    text.width()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_with_wide_characters() {
        let text = render("L", &["你好".into()], "R", &["{".into()], 41);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let bar = |line: &str| display_width(&line[..line.find('│').unwrap()]);
        assert_eq!(bar(lines[0]), bar(lines[2]));
    }

    #[test]
    fn long_lines_wrap_and_long_columns_are_cut() {
        let long = vec!["x".repeat(50)];
        let text = render("L", &long, "R", &[], 43);
        assert_eq!(text.lines().count(), 2 + 3);
        let many: Vec<String> = (0..500).map(|n| n.to_string()).collect();
        let text = render("L", &many, "R", &[], 80);
        assert!(text.contains("300 more lines"));
    }

    #[test]
    fn controls_are_visible_and_never_split() {
        // 17 cells: the visible escape (6 cells) cannot fit after 12 letters in a 16-cell column.
        let line = format!("{}\u{1b}]0;t\u{7}{}", "a".repeat(12), "e\u{301}".repeat(20));
        let mut pieces = Vec::new();
        wrap_line(&line, 16, &mut pieces);
        assert!(
            pieces
                .iter()
                .all(|p| !p.chars().any(toolscope_core::text_util::is_terminal_unsafe))
        );
        assert_eq!(pieces[0], "a".repeat(12));
        assert!(pieces[1].starts_with("\\u{1b}]0;t\\u{7}"), "{pieces:?}");
        for piece in &pieces[2..] {
            // Each combining accent stays with its letter.
            assert!(!piece.starts_with('\u{301}'), "{pieces:?}");
            assert!(display_width(piece) <= 16);
        }
        let text = render("L", &[line], "R", &["\u{202e}x".into()], 40);
        assert!(text.contains("\\u{202e}x"));
        let bars: Vec<usize> = text
            .lines()
            .map(|l| display_width(&l[..l.find('│').unwrap()]))
            .collect();
        assert!(bars.iter().all(|&b| b == bars[0]), "{bars:?}");
    }
}
