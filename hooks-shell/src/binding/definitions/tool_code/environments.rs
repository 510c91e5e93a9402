//! Build folders and environments a tool keeps in the project and runs code
//! from on the next run (red team round 72, R72-3b): cargo's target folder
//! (a test binary or build script it takes for fresh), tox's and nox's
//! virtualenvs (a `.pth`, a `sitecustomize.py`, another `python`). The
//! hook's cargo and tox build in a folder of the Hermes home
//! (`crate::build_folders`); what would still put them in the project, and
//! nox reusing its `.nox` environments (nox reads no variable for its
//! folder), cannot be approved: nothing binds what those folders hold.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// Why `program` (`cargo`, `tox` or `nox`), given `args` and run in `dir`,
/// keeps what it builds or runs from in a folder of the project named by
/// its own option.
pub(super) fn folder_option(program: &str, args: &[String], dir: &Path) -> Option<String> {
    let option = match program {
        "cargo" => "--target-dir",
        "tox" => "--workdir",
        _ => return None,
    };
    let given = super::option_values(args, &[option]);
    let (_, value) = given.into_iter().find(|(_, value)| {
        let path = Path::new(value);
        !path.is_absolute() || crate::binding::normalize(&dir.join(path)).starts_with(dir)
    })?;
    Some(format!(
        "{program} {option} {value}: it would run what it finds there, which no approval binds \
         (hooks give {program} a folder of the Hermes home); drop the option"
    ))
}

/// Why nox, given `args` and the noxfile `text`, reuses the virtualenvs it
/// keeps in the project (`-r`, `-R`, `--reuse-existing-virtualenvs`,
/// `--reuse-venv`, or the noxfile's `reuse_existing_virtualenvs` /
/// `reuse_venv`).
pub(super) fn nox_reuses(args: &[String], text: &str) -> Option<String> {
    static NOXFILE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"reuse_(?:existing|venv)").expect("valid regex"));
    let reused_by_option = args.iter().find(|arg| {
        arg.starts_with("--reuse")
            || (arg.starts_with('-')
                && !arg.starts_with("--")
                && arg[1..].chars().all(|c| c.is_ascii_alphabetic())
                && arg.contains(['r', 'R']))
    });
    let why = match reused_by_option {
        Some(option) => format!("nox {option}"),
        None if NOXFILE.is_match(text) => "its noxfile.py reuses virtualenvs".to_owned(),
        None => return None,
    };
    Some(format!(
        "{why}: nox would run what a reused `.nox` environment holds (a `.pth`, another \
         `python`), which no approval binds; let nox make its environments again each run"
    ))
}

/// Why tox's settings `text` keep an environment in a folder of its own
/// (`env_dir` / `envdir` not under `{work_dir}`), which `TOX_WORK_DIR`
/// does not move.
pub(super) fn tox_env_folder(text: &str) -> Option<String> {
    static KEY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?m)^[ \t]*"?(env_?dir)"?[ \t]*[=:][ \t]*"?([^"\r\n]*)"#)
            .expect("valid regex")
    });
    KEY.captures_iter(text).find_map(|found| {
        let value = found[2].trim();
        let under_work = ["{work_dir}", "{toxworkdir}"]
            .iter()
            .any(|work| value.starts_with(work));
        (!under_work).then(|| {
            format!(
                "tox's {} = {value}: tox would reuse the environment it finds there, which no \
                 approval binds; keep environments under {{work_dir}}",
                &found[1]
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn nox_reusing_its_environments_is_told_and_a_fresh_run_is_not() {
        assert!(super::nox_reuses(&words("-R -s t"), "").is_some());
        assert!(super::nox_reuses(&words("-rs t"), "").is_some());
        assert!(super::nox_reuses(&words("--reuse-venv=yes"), "").is_some());
        let file = "import nox\nnox.options.reuse_existing_virtualenvs = True\n";
        assert!(super::nox_reuses(&words("-s t"), file).is_some());
        assert!(super::nox_reuses(&words("-s t"), "import nox\n").is_none());
        assert!(super::nox_reuses(&words("--session lint"), "").is_none());
    }

    #[test]
    fn folders_given_in_the_project_are_told() {
        let dir = Path::new("/p");
        assert!(super::folder_option("cargo", &words("test --target-dir target"), dir).is_some());
        assert!(super::folder_option("cargo", &words("test --target-dir=/p/t"), dir).is_some());
        assert!(super::folder_option("cargo", &words("test --target-dir /var/t"), dir).is_none());
        assert!(super::folder_option("tox", &words("--workdir .t -e a"), dir).is_some());
        assert!(super::folder_option("cargo", &words("test -q"), dir).is_none());
    }

    #[test]
    fn a_tox_environment_kept_outside_the_work_folder_is_told() {
        assert!(super::tox_env_folder("[testenv:t]\nenvdir = .venv\n").is_some());
        assert!(super::tox_env_folder("[env.t]\nenv_dir = \"x\"\n").is_some());
        assert!(super::tox_env_folder("[testenv]\nenvdir = {toxworkdir}/t\n").is_none());
        assert!(super::tox_env_folder("[testenv]\ncommands = pytest\n").is_none());
    }
}
