//! The README stays true: every option the binary accepts is documented,
//! and the output it quotes is the output the binary prints.

mod common;

use common::{routergen, stdout};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
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
fn every_option_is_in_the_readme() {
    let text = readme();
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
        assert!(!options.is_empty(), "no options in {args:?}");
        for opt in options {
            assert!(
                text.contains(&opt),
                "README does not mention {opt} of {args:?}"
            );
        }
        if let Some(name) = sub.first() {
            assert!(
                text.contains(&format!("routergen {name}")),
                "README lacks `routergen {name}`"
            );
        }
    }
}

#[test]
fn the_quoted_paper_tables_are_what_the_binary_prints() {
    let text = readme();
    let marker = "`routergen model --paper-tables` prints:\n\n```\n";
    let start = text.find(marker).expect("README quotes the paper tables") + marker.len();
    let quoted = &text[start..start + text[start..].find("```").unwrap()];
    assert_eq!(quoted, stdout(&routergen(&["model", "--paper-tables"])));
}
