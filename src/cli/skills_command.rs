//! `toolscope skills <SERVER>`: the skills a server lists (SEP-2640), from `skills/list`
//! alone; `toolscope skill <SERVER> <NAME>`: one skill loaded: its `SKILL.md` read and checked
//! against the listing (size, digest, frontmatter field by field), then its files, each
//! checked. A mismatch is printed with both sides and exits 1; content that failed a check is
//! never printed as the skill.

use clap::Args;
use serde_json::json;

use super::{CliError, EXIT_OK, EXIT_TOOL_PROBLEM, ServerArgs, feature_session};
use toolscope_core::skills::{
    self, FileCheck, FileContent, FileState, FilesWanted, LoadedSkill, SkillEntry, SkillListing,
    verify::difference_text,
};
use toolscope_core::text_util::terminal_safe_lines;

#[derive(Debug, Args)]
pub struct SkillsArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print the entries as read from the listing, as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SkillArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The skill: its name, its path (acme/billing/refunds) or its SKILL.md URI (a URI the
    /// listing lacks is asked for with skills/get)
    pub name: String,
    /// Read only this file of the skill (its path inside the skill, or its URI) and print it
    /// instead of SKILL.md
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Print the skill, its files and every check as JSON
    #[arg(long)]
    pub json: bool,
}

pub async fn list(args: SkillsArgs) -> Result<u8, CliError> {
    let (session, control) = feature_session::open(&args.server).await?;
    let listing = skills::list(&session, &control).await;
    session.close().await;
    let listing = listing.map_err(|error| error.to_string())?;
    if args.json {
        super::output::emit_json(&json!({
            "skills": listing.skills,
            "pages": listing.pages,
            "problems": listing.problems,
        }));
        return Ok(EXIT_OK);
    }
    super::emit(&listing_text(&listing));
    Ok(EXIT_OK)
}

fn listing_text(listing: &SkillListing) -> String {
    let mut out = String::new();
    let count = listing.skills.len();
    outln!(
        &mut out,
        "{count} skill{}",
        if count == 1 { "" } else { "s" }
    );
    for skill in &listing.skills {
        outln!(
            &mut out,
            "{} · {}",
            feature_session::one_line(&skill.name),
            feature_session::one_line(&skill.description)
        );
        outln!(&mut out, "  {}", feature_session::one_line(&skill.uri));
        match &skill.files {
            Some(files) => {
                for file in files {
                    outln!(
                        &mut out,
                        "  - {}{}",
                        feature_session::one_line(skill.relative_path(&file.uri)),
                        size_text(file.size)
                    );
                }
            }
            None => outln!(
                &mut out,
                "  (no files listed: a generated skill, whose content cannot be verified)"
            ),
        }
    }
    for problem in &listing.problems {
        outln!(&mut out, "note: {}", feature_session::one_line(problem));
    }
    out
}

fn size_text(size: Option<u64>) -> String {
    size.map(|size| format!(" ({size} bytes)"))
        .unwrap_or_default()
}

pub async fn load(args: SkillArgs) -> Result<u8, CliError> {
    let (session, control) = feature_session::open(&args.server).await?;
    let loaded = async {
        let listing = skills::list(&session, &control)
            .await
            .map_err(|error| error.to_string())?;
        let entry = skills::find(&session, &listing, &args.name, &control)
            .await
            .map_err(|error| error.to_string())?;
        let wanted = match &args.file {
            Some(file) => FilesWanted::Only(file.clone()),
            None => FilesWanted::All,
        };
        if let Some(file) = &args.file {
            check_file_named(&entry, file)?;
        }
        Ok::<_, CliError>(skills::load(&session, entry, &wanted, &control).await)
    }
    .await;
    session.close().await;
    let loaded = loaded?;
    if let FileState::ReadFailed { problem } = &loaded.skill_md.state {
        return Err(format!("reading {}: {problem}", loaded.skill_md.uri).into());
    }
    if args.json {
        super::output::emit_json(&loaded);
    } else {
        super::emit(&loaded_text(&loaded, args.file.as_deref()));
    }
    Ok(if loaded.is_verified() {
        EXIT_OK
    } else {
        EXIT_TOOL_PROBLEM
    })
}

/// `--file` must name one of the skill's listed files: an unlisted one is never read.
fn check_file_named(entry: &SkillEntry, file: &str) -> Result<(), CliError> {
    let known = entry
        .supporting_files()
        .any(|listed| listed.uri == file || entry.relative_path(&listed.uri) == file);
    if known {
        return Ok(());
    }
    let paths: Vec<&str> = entry
        .supporting_files()
        .map(|listed| entry.relative_path(&listed.uri))
        .collect();
    Err(format!(
        "--file {file}: the skill lists no such file ({}); an unlisted file cannot be verified, \
         so it is not read",
        if paths.is_empty() {
            "it lists only SKILL.md".to_owned()
        } else {
            format!("it lists {}", paths.join(", "))
        }
    )
    .into())
}

/// The skill as printed: its name and URI, each file's verdict, then the content asked for
/// (SKILL.md, or the one `--file`) when it passed; a failed check with both sides instead.
fn loaded_text(loaded: &LoadedSkill, file: Option<&str>) -> String {
    let mut out = String::new();
    let entry = &loaded.entry;
    outln!(
        &mut out,
        "skill {} · {}",
        feature_session::one_line(&entry.name),
        feature_session::one_line(&entry.description)
    );
    outln!(&mut out, "{}", feature_session::one_line(&entry.uri));
    for check in std::iter::once(&loaded.skill_md).chain(&loaded.files) {
        verdict_lines(&mut out, check);
    }
    if !loaded.skill_md.state.is_verified() {
        outln!(
            &mut out,
            "The skill is not loaded: SKILL.md does not match the listing, so its content is not \
             shown and its files were not read."
        );
        return out;
    }
    let shown = match file {
        Some(file) => loaded
            .files
            .iter()
            .find(|check| check.path == file || check.uri == file),
        None => Some(&loaded.skill_md),
    };
    if let Some(check) = shown {
        match &check.state {
            FileState::Verified { content } => {
                outln!(&mut out, "── {}", feature_session::one_line(&check.path));
                match content {
                    FileContent::Text { text } => outln!(&mut out, "{}", terminal_safe_lines(text)),
                    FileContent::Binary { mime_type, size } => outln!(
                        &mut out,
                        "(binary content, {size} bytes, {})",
                        feature_session::one_line(mime_type.as_deref().unwrap_or("no MIME type"))
                    ),
                }
            }
            _ => outln!(
                &mut out,
                "{} is not shown: it did not pass its checks.",
                feature_session::one_line(&check.path)
            ),
        }
    }
    out
}

/// One file's verdict, and under it each failed check with what was listed and what came.
fn verdict_lines(out: &mut String, check: &FileCheck) {
    let path = feature_session::one_line(&check.path);
    let size = size_text(check.listed_size);
    match &check.state {
        FileState::Verified { .. } => outln!(out, "  {path}{size}: verified"),
        FileState::NotAskedFor => outln!(out, "  {path}{size}: not read"),
        FileState::NotReadSkillRejected => {
            outln!(out, "  {path}{size}: not read (the skill was rejected)");
        }
        FileState::ReadFailed { problem } => outln!(
            out,
            "  {path}{size}: not read: {}",
            feature_session::one_line(problem)
        ),
        FileState::Mismatched { failed } => {
            outln!(out, "  {path}{size}: MISMATCH, content withheld");
            for mismatch in failed {
                match mismatch {
                    skills::Mismatch::Frontmatter { differences } => {
                        outln!(out, "    frontmatter differs from the listing's:");
                        for difference in differences {
                            outln!(
                                out,
                                "      {}",
                                terminal_safe_lines(&difference_text(difference))
                            );
                        }
                    }
                    other => outln!(out, "    {}", feature_session::one_line(&other.to_string())),
                }
            }
        }
    }
}
