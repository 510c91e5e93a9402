//! Code that starts a program in a way the reading of what code starts
//! ([`super::started_commands`]) does not follow, whatever the command:
//! Python's `os.spawnlp(os.P_WAIT, "make", …)`, `os.execvp`, `pty.spawn`,
//! a module's function reached by `getattr(subprocess, "run")`; Node's
//! `promisify(exec)` and other functions of `child_process` taken as
//! values; Perl's `system @args`. A test file (red team round 73: TS-14,
//! TS-15, JT-06) or a git hook written that way starts what nothing read,
//! so what it reaches cannot be bound.

use std::sync::LazyLock;

use regex::Regex;

/// How `code`, in `language` (as [`super::super::language`] names it:
/// `python3`, `node`, `perl`), starts a program in a way the reading of
/// started commands does not follow; `None` when it does not, or starts
/// none.
pub(crate) fn unfollowed_start(language: &str, code: &str) -> Option<String> {
    static PYTHON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:os|posix)\s*\.\s*(?:spawn|exec|posix_spawn)\w*\s*\(|\bpty\s*\.\s*spawn\s*\(|\b(?:subprocess|os|pty|posix)\s*\.\s*__dict__|\bvars\s*\(\s*(?:subprocess|os|pty|posix)\s*\)")
            .expect("valid regex")
    });
    static NODE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\bpromisify\s*\(|child_process["']?\s*\)?\s*\[|\b(?:cp|childProcess|child_process)\s*\["#)
            .expect("valid regex")
    });
    // Perl's `system @args`, `system { $x } …`, and the IPC modules that
    // start programs (round 75, R75-3: `open3(…, "make", …)`).
    static PERL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:system|exec)\s*(?:\(?\s*@|\{)|\bIPC::(?:Open[23]|Cmd|Run\d?|System\w*)\b")
            .expect("valid regex")
    });
    // A module imported by a name built when it runs (`import_module("sub"
    // + "process")`, `__import__(name)`): what it calls is unseen.
    static MODULE_BY_NAME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\b(?:import_module|__import__)\s*\(\s*(?:[^"'\s)]|["'][^"'\n]*["']\s*[+%.])"#)
            .expect("valid regex")
    });
    match language {
        "python" | "python3" => (PYTHON.find(code))
            .or_else(|| MODULE_BY_NAME.find(code))
            .map(|found| found.as_str().to_owned())
            .or_else(|| super::python_values::reaches_module_by_name(code)),
        // A function passed to `promisify` or reached by a computed key; a
        // renamed one (`{ spawnSync: s }`, `run = cp.execSync`) is read by
        // its name ([`super::started`]), so it is no refusal here.
        "node" | "bun" | "deno" if code.contains("child_process") => {
            NODE.find(code).map(|found| found.as_str().to_owned())
        }
        "perl" => PERL.find(code).map(|found| found.as_str().to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::unfollowed_start;

    #[test]
    fn starts_no_reading_follows_are_found() {
        for (language, code) in [
            (
                "python3",
                "import os\nos.spawnlp(os.P_WAIT, 'make', 'make', '-s', 'lint')\n",
            ),
            (
                "python3",
                "import os\nos.execvp('make', ['make', 'lint'])\n",
            ),
            (
                "python3",
                "import subprocess\ngetattr(subprocess, 'run')(['make'])\n",
            ),
            (
                "python3",
                "import subprocess\nsubprocess.__dict__['run'](['make'])\n",
            ),
            (
                "node",
                "const {promisify}=require('util'); promisify(require('child_process').exec)('make -s lint')",
            ),
            (
                "node",
                "const { exec } = require('child_process'); const p = util.promisify(exec);",
            ),
            ("perl", "my @c = ('make', 'lint'); system @c;\n"),
            (
                "perl",
                "use IPC::Open3; open3(my $i, my $o, undef, 'make', 'lint');\n",
            ),
            ("perl", "my $x = 'make'; system { $x } 'make', 'lint';\n"),
            (
                "python3",
                "import importlib as il\nm = il.import_module('sub' + 'process')\n",
            ),
            ("python3", "m = __import__(name)\n"),
        ] {
            assert!(unfollowed_start(language, code).is_some(), "{code}");
        }
    }

    #[test]
    fn ordinary_test_code_is_not_refused() {
        for (language, code) in [
            (
                "python3",
                "import os\ndef test_a(obj):\n    assert getattr(obj, 'x') == obj.__dict__['x']\n    os.path.join('a')\n",
            ),
            (
                "python3",
                "import subprocess\nsubprocess.run(['make', '-s', 'lint'], check=True)\n",
            ),
            (
                "node",
                "const { execSync } = require('child_process'); execSync('make -s lint');",
            ),
            ("node", "test('a', () => { expect(1).toBe(1) })"),
            (
                "node",
                "const { spawnSync: s } = require('child_process');\ns('make', ['-s', 'lint']);",
            ),
            (
                "node",
                "const cp = require('child_process'); const run = cp.execSync; run('make -s lint');",
            ),
            ("perl", "system('make', '-s', 'lint');\n"),
            (
                "python3",
                "import importlib\nm = importlib.import_module('json')\n",
            ),
        ] {
            assert_eq!(unfollowed_start(language, code), None, "{code}");
        }
    }
}
