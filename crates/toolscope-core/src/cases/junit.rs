//! JUnit XML for CI systems: one `<testcase>` per case, a failure with each unmet expectation
//! (expected and actual), an error for a call that got no answer.

use std::fmt::Write as _;

use super::{CaseResult, RunSummary};
use crate::text_util::xml_escape;

fn seconds(duration: std::time::Duration) -> String {
    format!("{:.3}", duration.as_secs_f64())
}

/// The JUnit document of one run of a case file.
pub fn junit_xml(run: &RunSummary) -> String {
    let failures = run
        .runs
        .iter()
        .filter(|case| {
            matches!(
                case.result,
                CaseResult::Answered { .. } | CaseResult::Fetched { .. }
            ) && !case.passed()
        })
        .count();
    let errors = run
        .runs
        .iter()
        .filter(|case| {
            matches!(
                case.result,
                CaseResult::NoAnswer { .. } | CaseResult::Refused(_)
            )
        })
        .count()
        + usize::from(run.connect_error.is_some());
    let tests = run.runs.len() + usize::from(run.connect_error.is_some());
    let total: std::time::Duration = run.runs.iter().map(super::CaseRun::duration).sum();
    let suite = xml_escape(&run.suite_name);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"toolscope\" tests=\"{tests}\" failures=\"{failures}\" \
         errors=\"{errors}\" time=\"{}\">",
        seconds(total)
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{suite}\" tests=\"{tests}\" failures=\"{failures}\" \
         errors=\"{errors}\" skipped=\"0\" time=\"{}\" timestamp=\"{}\">",
        seconds(total),
        xml_escape(&run.started_at)
    );
    out.push_str("    <properties>\n");
    let mut property = |name: &str, value: &str| {
        let _ = writeln!(
            out,
            "      <property name=\"{name}\" value=\"{}\"/>",
            xml_escape(value)
        );
    };
    property("server", &run.server_label);
    if let Some(summary) = &run.summary {
        property("server_name", summary.name.as_deref().unwrap_or(""));
        property("server_version", summary.version.as_deref().unwrap_or(""));
        property("protocol_version", &summary.protocol_version);
    }
    out.push_str("    </properties>\n");
    if let Some(error) = &run.connect_error {
        let _ = writeln!(
            out,
            "    <testcase name=\"connect\" classname=\"{suite}\" time=\"0.000\">\n      \
             <error type=\"connection\" message=\"{}\">{}</error>\n    </testcase>",
            xml_escape(error),
            xml_escape(error)
        );
    }
    for case in &run.runs {
        let _ = write!(
            out,
            "    <testcase name=\"{}\" classname=\"{suite}.{}\" time=\"{}\"",
            xml_escape(&case.name),
            xml_escape(&case.tool),
            seconds(case.duration())
        );
        match &case.result {
            CaseResult::Answered { failures, .. } | CaseResult::Fetched { failures, .. }
                if failures.is_empty() =>
            {
                out.push_str("/>\n");
            }
            CaseResult::Answered { failures, .. } | CaseResult::Fetched { failures, .. } => {
                out.push_str(">\n");
                for failure in failures {
                    let _ = writeln!(
                        out,
                        "      <failure type=\"{}\" message=\"{}\">expectation: {}\nexpected: \
                         {}\nactual: {}</failure>",
                        xml_escape(&failure.expectation),
                        xml_escape(&failure.sentence()),
                        xml_escape(&failure.expectation),
                        xml_escape(&failure.expected),
                        xml_escape(&failure.actual)
                    );
                }
                out.push_str("    </testcase>\n");
            }
            CaseResult::NoAnswer { error, verdict, .. } => {
                let _ = writeln!(
                    out,
                    ">\n      <error type=\"{}\" message=\"{}\">{}</error>\n    </testcase>",
                    verdict.as_str(),
                    xml_escape(error),
                    xml_escape(error)
                );
            }
            CaseResult::Refused(_) => {
                let why = case.failure_sentences().join(" ");
                let _ = writeln!(
                    out,
                    ">\n      <error type=\"not_sent\" message=\"{}\">{}</error>\n    </testcase>",
                    xml_escape(&why),
                    xml_escape(&why)
                );
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
