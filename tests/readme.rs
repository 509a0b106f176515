//! The README and the reference in docs/ stay true: every option the binary
//! accepts is documented, the output they quote is the output the binary
//! prints, and every relative link points to a file and heading that exist.

mod common;

use common::{routergen, stdout};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn readme() -> String {
    read(&root().join("README.md"))
}

/// README.md and every page of docs/, with their paths.
fn pages() -> Vec<(PathBuf, String)> {
    let mut paths = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    paths
        .into_iter()
        .map(|p| {
            let text = read(&p);
            (p, text)
        })
        .collect()
}

/// Long options (`--name`) in a clap help text.
fn long_options(help: &str) -> Vec<String> {
    help.split_whitespace()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches([',', '.', ']', ')'])
                .split(['=', '['])
                .next()
                .unwrap()
                .to_string()
        })
        .filter(|w| w != "--help" && w != "--version")
        .collect()
}

#[test]
fn every_option_is_documented() {
    let all: String = pages().into_iter().map(|(_, t)| t).collect();
    let front = readme();
    let mut subcommands = vec![vec![]];
    let top = stdout(&routergen(&["--help"]));
    for line in top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
    {
        match line.split_whitespace().next() {
            Some(name) if line.starts_with("  ") && name != "help" => subcommands.push(vec![name]),
            _ => break,
        }
    }
    assert!(subcommands.len() >= 2, "no subcommands found in:\n{top}");
    for sub in subcommands {
        let mut args = sub.clone();
        args.push("--help");
        let help = stdout(&routergen(&args));
        let options = long_options(&help);
        // `routergen job FILE` takes its one argument and no option.
        assert!(
            !options.is_empty() || (sub == ["job"] && help.contains("<FILE>")),
            "no options in {args:?}"
        );
        for opt in options {
            assert!(
                all.contains(&opt),
                "neither README.md nor docs/*.md mentions {opt} of {args:?}"
            );
        }
        // The README's usage lists every command, so a newcomer finds each
        // one on the first page.
        if let Some(name) = sub.first() {
            assert!(
                front.contains(&format!("routergen {name}")),
                "README.md lacks `routergen {name}`"
            );
        }
    }
}

/// docs/generate.md's table of the specification options is the one their
/// declaration gives: flags, TOML keys, what is allowed, defaults.
#[test]
fn the_options_table_is_the_declared_options() {
    let page = read(&root().join("docs/generate.md"));
    let table = routergen::cli::spec_options_markdown();
    assert!(
        page.contains(&table),
        "docs/generate.md lacks the table `routergen::cli::spec_options_markdown()` \
         gives:\n{table}"
    );
}

#[test]
fn the_quoted_paper_tables_are_what_the_binary_prints() {
    let text = read(&root().join("docs/model.md"));
    let marker = "`routergen model --paper-tables` prints:\n\n```\n";
    let start = text
        .find(marker)
        .expect("docs/model.md quotes the paper tables")
        + marker.len();
    let quoted = &text[start..start + text[start..].find("```").unwrap()];
    assert_eq!(quoted, stdout(&routergen(&["model", "--paper-tables"])));
}

/// The lines of a Markdown text outside fenced code blocks, with inline
/// code spans removed (a link or heading inside code is not one).
fn prose_lines(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut kept = String::new();
        for (i, part) in line.split('`').enumerate() {
            // Even parts are outside code spans; a code span's text is
            // kept as letters only, so a heading's anchor still sees it.
            if i % 2 == 0 {
                kept.push_str(part);
            } else {
                kept.push_str(&part.replace("](", "] ("));
            }
        }
        out.push(kept);
    }
    out
}

/// GitHub's anchor for a heading: lower case, letters, digits, `-` and `_`
/// kept, spaces made `-`, everything else dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings, with GitHub's `-1`, `-2` suffixes for
/// repeated ones.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = anchor(&line[hashes..]);
        let n = seen.iter().filter(|a| **a == base).count();
        seen.push(base.clone());
        out.push(if n == 0 { base } else { format!("{base}-{n}") });
    }
    out
}

/// The targets of the inline links `[text](target)` of a page.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            out.push(rest[..end].trim().to_string());
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_names_a_file_and_heading_that_exist() {
    let mut bad = Vec::new();
    for (page, text) in pages() {
        let dir = page.parent().unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, frag) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                page.clone()
            } else {
                dir.join(path)
            };
            if !file.exists() {
                bad.push(format!("{}: {target}: no file", page.display()));
                continue;
            }
            if let Some(frag) = frag {
                if !anchors(&read(&file)).iter().any(|a| a == frag) {
                    bad.push(format!("{}: {target}: no such heading", page.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

// The checks of the link test, on cases worked by hand: it must be able to
// fail.
#[test]
fn the_link_checker_reads_headings_and_links_as_github_does() {
    assert_eq!(
        anchor(" Proving a routing relation: `routergen check`"),
        "proving-a-routing-relation-routergen-check"
    );
    assert_eq!(
        anchor("Chien's model against real gates"),
        "chiens-model-against-real-gates"
    );
    assert_eq!(
        anchor("`star-channels`: *-channels"),
        "star-channels--channels"
    );
    assert_eq!(
        anchors("# A\n\n```\n# not a heading\n```\n## A\n#nospace\n"),
        ["a", "a-1"]
    );
    assert_eq!(
        link_targets("see [a](b.md#c) and `[x](y)` and ![i](p.svg)\n```\n[q](r)\n```\n"),
        ["b.md#c", "p.svg"]
    );
}

#[test]
fn the_readme_links_every_page_of_docs() {
    let front = readme();
    for (page, _) in pages().into_iter().skip(1) {
        let name = page.file_name().unwrap().to_string_lossy();
        assert!(
            front.contains(&format!("(docs/{name}")),
            "README.md does not link docs/{name}"
        );
    }
}

// The README is the first screen: what routergen is, the two commands,
// where to go next. Reference material belongs in docs/.
#[test]
fn the_readme_stays_short() {
    let lines = readme().lines().count();
    assert!(
        lines <= 200,
        "README.md has {lines} lines; move reference material to docs/"
    );
}
