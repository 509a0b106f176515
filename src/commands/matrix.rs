//! `routergen matrix`: every router configuration routergen builds
//! ([`crate::router::matrix`]) through its output directory's own checks,
//! each router a job on the flags' executor; the table is written from the
//! results in the matrix's order, so it is the same bytes whichever
//! executor ran the jobs and in whatever order they finished.

use super::{job, Outcome};
use crate::cli::MatrixArgs;
use crate::error::{Error, Result};
use crate::work::{self, check, Output, Task};

/// Checks the configurations `args` select and prints the table.
pub fn run(args: &MatrixArgs) -> Result<Outcome> {
    job::executor(&args.exec)?;
    let only = args.only.as_deref().unwrap_or("");
    let all = crate::router::matrix();
    let specs: Vec<_> = all.iter().filter(|s| s.name().contains(only)).collect();
    if specs.is_empty() {
        return Err(Error::InvalidSpec(format!(
            "only = {only} is in no configuration's name: the {} names run from {} to {}",
            all.len(),
            all.first().map(|s| s.name()).unwrap_or_default(),
            all.last().map(|s| s.name()).unwrap_or_default()
        )));
    }
    let tasks = specs
        .iter()
        .map(|s| {
            Ok((
                format!("matrix: {}", s.name()),
                Task::Check {
                    spec: work::spec_input(s)?,
                },
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let outputs = work::run_all(&tasks, |w| {
        job::run_plan(&args.exec, None, "routergen matrix", w)
    })?;
    let rows: Vec<(String, Output)> = specs.iter().map(|s| s.name()).zip(outputs).collect();
    print!("{}", check::table(&rows)?);
    let failed = rows
        .iter()
        .any(|(_, o)| matches!(o, Output::Checked { steps, .. } if steps.iter().any(|s| !s.1)));
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Success
    })
}
