//! `toolscope ping <SERVER> [--count N]`: each round trip, then min, median and max. Protocol
//! 2026-07-28 removed `ping`: a server of that era is timed with `server/discover`, and the
//! output says so.

use std::time::Duration;

use clap::Args;
use serde_json::json;

use super::{CliError, EXIT_FAILURE, EXIT_OK, ServerArgs, feature_session};

#[derive(Debug, Args)]
pub struct PingArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// How many pings, one after the other
    #[arg(long, short = 'c', default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub count: u32,
    /// Print the round trips as JSON (milliseconds)
    #[arg(long)]
    pub json: bool,
}

pub async fn run(args: PingArgs) -> Result<u8, CliError> {
    let (session, control) = feature_session::open(&args.server).await?;
    let method = session.round_trip_method();
    let mut times = Vec::new();
    let mut failures = Vec::new();
    let mut lines = if method == "ping" {
        String::new()
    } else {
        format!(
            "(protocol {} has no ping: each round trip is a server/discover)\n",
            feature_session::one_line(&session.summary().protocol_version)
        )
    };
    for number in 1..=args.count {
        match session.ping(&control).await {
            Ok(took) => {
                lines.push_str(&format!("ping {number}: {}\n", millis(took)));
                times.push(took);
            }
            Err(error) => {
                lines.push_str(&format!("ping {number}: failed: {error}\n"));
                failures.push(error.to_string());
            }
        }
    }
    session.close().await;
    let code = if failures.is_empty() {
        EXIT_OK
    } else {
        EXIT_FAILURE
    };
    if args.json {
        let ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1000.0).collect();
        super::output::emit_json(&json!({
            "method": method,
            "round_trips_ms": ms,
            "failures": failures,
        }));
        return Ok(code);
    }
    if let Some((min, median, max)) = spread(&times) {
        lines.push_str(&format!(
            "{} of {} answered · min {} · median {} · max {}\n",
            times.len(),
            args.count,
            millis(min),
            millis(median),
            millis(max)
        ));
    }
    super::emit(&lines);
    Ok(code)
}

fn millis(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

/// Min, median and max (the lower middle of an even count).
fn spread(times: &[Duration]) -> Option<(Duration, Duration, Duration)> {
    let mut sorted = times.to_vec();
    sorted.sort();
    Some((
        *sorted.first()?,
        sorted[(sorted.len() - 1) / 2],
        *sorted.last()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_of_round_trips() {
        let ms = Duration::from_millis;
        assert_eq!(spread(&[ms(3), ms(1), ms(2)]), Some((ms(1), ms(2), ms(3))));
        assert_eq!(spread(&[ms(4), ms(1)]), Some((ms(1), ms(1), ms(4))));
        assert_eq!(spread(&[]), None);
    }
}
