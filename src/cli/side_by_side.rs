//! Two text columns printed beside each other, wrapped to the terminal width.

use unicode_width::UnicodeWidthChar;

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

/// Breaks a line into pieces of at most `column` display cells (CJK counts double).
fn wrap_line(line: &str, column: usize, out: &mut Vec<String>) {
    let mut piece = String::new();
    let mut used = 0;
    for c in line.chars() {
        let c = if c == '\t' { ' ' } else { c };
        let w = c.width().unwrap_or(0);
        if used + w > column {
            out.push(std::mem::take(&mut piece));
            used = 0;
        }
        piece.push(c);
        used += w;
    }
    out.push(piece);
}

fn display_width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
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
}
