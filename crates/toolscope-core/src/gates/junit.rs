//! The gate's findings as JUnit XML: a test suite per session or recording, a passing test
//! case for each rule it kept, and a failing one for each finding.

use std::fmt::Write as _;

use super::{finding::Rule, judge::Judgement};
use crate::text_util::xml_escape;

/// The JUnit document of `judged`.
pub fn junit_xml(judged: &[Judgement]) -> String {
    let total_failures: usize = judged.iter().map(|j| j.findings.len()).sum();
    let total_tests: usize = judged.iter().map(tests_of).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"toolscope check\" tests=\"{total_tests}\" \
         failures=\"{total_failures}\" errors=\"0\">"
    );
    for judgement in judged {
        let suite = xml_escape(&judgement.source.label());
        let _ = writeln!(
            out,
            "  <testsuite name=\"{suite}\" tests=\"{}\" failures=\"{}\" errors=\"0\" \
             skipped=\"0\">",
            tests_of(judgement),
            judgement.findings.len()
        );
        for rule in Rule::ALL {
            let found: Vec<_> = judgement
                .findings
                .iter()
                .filter(|finding| finding.rule == rule)
                .collect();
            if found.is_empty() {
                let _ = writeln!(
                    out,
                    "    <testcase name=\"{}\" classname=\"{suite}\"/>",
                    rule.id()
                );
                continue;
            }
            let numbered = found.len() > 1;
            for (nth, finding) in found.into_iter().enumerate() {
                let place = finding.place();
                let mut name = if place.is_empty() {
                    rule.id().to_owned()
                } else {
                    format!("{}: {place}", rule.id())
                };
                // Reporters merge test cases of one name: several findings of a rule in one
                // place (lines not JSON, a tool failing twice) are numbered.
                if numbered {
                    name.push_str(&format!(" #{}", nth + 1));
                }
                let _ = writeln!(
                    out,
                    "    <testcase name=\"{}\" classname=\"{suite}\">\n      <failure \
                     type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>",
                    xml_escape(&name),
                    rule.id(),
                    xml_escape(&finding.message),
                    xml_escape(rule.description())
                );
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// A passing case per rule without findings, a failing one per finding.
fn tests_of(judgement: &Judgement) -> usize {
    Rule::ALL
        .iter()
        .map(|rule| {
            judgement
                .findings
                .iter()
                .filter(|finding| finding.rule == *rule)
                .count()
                .max(1)
        })
        .sum()
}
