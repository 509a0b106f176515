//! The one place that knows which flag sets which parameter. The library
//! speaks of parameters by the names its spec and configs give them, the
//! keys of a TOML spec (`dims = 40`, `datapath = sliced`, `buffer_depth =
//! 0`); the binary adds to a message the flags of the parameters it names,
//! read from the clap definitions of the command that ran, so that a name
//! and its flag cannot drift apart.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::Error;

/// The long flags of a command (`None`: generation, else the subcommand's
/// name), each with the id clap gives its argument, the field it fills:
/// `("buffer_depth", "--depth")`, `("algorithm", "--algo")`.
pub fn table(command: Option<&str>) -> Vec<(String, String)> {
    let root = Cli::command();
    let cmd = match command {
        Some(name) => match root.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => return Vec::new(),
        },
        None => root,
    };
    cmd.get_arguments()
        .filter_map(|a| Some((a.get_id().to_string(), format!("--{}", a.get_long()?))))
        .collect()
}

/// `err` with the flags of the parameters its message names (written
/// `name = value`) added at its end; errors of tools, whose text is theirs,
/// and messages that name no parameter are left as they are.
pub fn name_flags(err: Error, command: Option<&str>) -> Error {
    let table = table(command);
    let with = |msg: String| annotate(msg, &table);
    match err {
        Error::InvalidSpec(msg) => Error::InvalidSpec(with(msg)),
        Error::Simulation(msg) => Error::Simulation(with(msg)),
        Error::Output { path, message } => Error::Output {
            path,
            message: with(message),
        },
        other => other,
    }
}

/// `msg` followed by ` (flags: --datapath, --algo for algorithm)`: the
/// flag of every parameter of `table` that `msg` sets (`name = `), in the
/// order the message names them; the parameter is spelled out where its
/// flag says it otherwise.
fn annotate(msg: String, table: &[(String, String)]) -> String {
    let mut named: Vec<(usize, &str, &str)> = table
        .iter()
        .filter_map(|(id, flag)| Some((first_setting(&msg, id)?, id.as_str(), flag.as_str())))
        .collect();
    if named.is_empty() {
        return msg;
    }
    named.sort_unstable();
    let flags: Vec<String> = named
        .iter()
        .map(|&(_, id, flag)| {
            if flag[2..] == id.replace('_', "-") {
                flag.to_string()
            } else {
                format!("{flag} for {id}")
            }
        })
        .collect();
    let noun = if flags.len() == 1 { "flag" } else { "flags" };
    format!("{msg} ({noun}: {})", flags.join(", "))
}

/// Where `msg` first sets the parameter `id` (`id = `, not inside a longer
/// name such as `max_id = `).
fn first_setting(msg: &str, id: &str) -> Option<usize> {
    let pattern = format!("{id} = ");
    msg.match_indices(&pattern).map(|(i, _)| i).find(|&i| {
        !msg[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
    })
}

#[cfg(test)]
mod tests {
    use super::{annotate, name_flags, table};
    use crate::error::Error;

    fn has(table: &[(String, String)], id: &str, flag: &str) -> bool {
        table.iter().any(|(i, f)| i == id && f == flag)
    }

    /// The table is read from the clap definitions of the command that
    /// ran: the spec flags of generation, the block's own.
    #[test]
    fn the_table_comes_from_the_commands_definitions() {
        let generate = table(None);
        assert!(has(&generate, "buffer_depth", "--depth"), "{generate:?}");
        assert!(has(&generate, "algorithm", "--algo"), "{generate:?}");
        assert!(has(&generate, "flit_width", "--flit-width"), "{generate:?}");
        assert!(!has(&generate, "load", "--load"), "{generate:?}");
        let block = table(Some("block"));
        assert!(has(&block, "depth", "--depth"), "{block:?}");
        assert!(has(&block, "freedom", "--freedom"), "{block:?}");
        assert!(has(&table(Some("sim")), "load", "--load"));
        assert!(table(Some("no-such-command")).is_empty());
    }

    #[test]
    fn a_message_gets_the_flags_of_the_parameters_it_sets() {
        let t = table(None);
        let msg = "datapath = sliced is not built for algorithm = duato; allowed: \
                   datapath = unified";
        assert_eq!(
            annotate(msg.into(), &t),
            format!("{msg} (flags: --datapath, --algo for algorithm)")
        );
        let msg = "buffer_depth = 0 is out of range";
        assert_eq!(
            annotate(msg.into(), &t),
            format!("{msg} (flag: --depth for buffer_depth)")
        );
        // Prose that only mentions a parameter's word, or a longer name
        // ending in one, gets nothing.
        for msg in ["the ports of a unified router", "max_dims = 3", "k = b^2"] {
            assert_eq!(annotate(msg.into(), &t), msg);
        }
    }

    /// Only the kinds whose text is routergen's are annotated, and they
    /// keep their kind (and so their exit status).
    #[test]
    fn errors_keep_their_kind() {
        let e = name_flags(Error::InvalidSpec("vcs = 0 is out of range".into()), None);
        assert!(matches!(e, Error::InvalidSpec(_)));
        assert_eq!(e.to_string(), "vcs = 0 is out of range (flag: --vcs)");
        let e = name_flags(
            Error::Tool {
                tool: "yosys".into(),
                message: "vcs = 0".into(),
            },
            None,
        );
        assert_eq!(e.to_string(), "yosys: vcs = 0");
    }
}
