//! Red team round 32's open rows: a glob to an environment's folder, not a
//! file of it (`PATH=$(echo .v*/bin):$PATH`, `V=${V:-.v*}`: R32-6;
//! `shutil.which(path=glob…)`: R32-7), and Python's recursive and
//! character-class globs (`rglob`, `**`, `[l]ib`: R32-8).

use crate::dialects::write;
use crate::round28::{changed_asks_again, checkout_without_environment, poison};
use crate::round29_environments::{boot_change_asks_again, runs_boot};
use crate::round30_open::each_holds;

#[test]
fn a_glob_to_an_environment_folder_binds_the_environment() {
    let which = "import glob, shutil, subprocess\n\
        subprocess.run([shutil.which('python', path=glob.glob('.v*/bin')[0]), 'check.py'])\n";
    let cases: [(&str, &str, &str); 3] = [
        ("PATH=$(echo .v*/bin):$PATH python check.py", "", ""),
        (
            "bash run.sh",
            "run.sh",
            "V=${V:-.v*}\n$V/bin/python check.py\n",
        ),
        ("python3 run.py", "run.py", which),
    ];
    each_holds(&cases, |(command, file, text)| {
        boot_change_asks_again(command, |project, site| {
            if !file.is_empty() {
                write(project, file, text);
            }
            write(site, "b.pth", "import bootmod\n");
            write(site, "bootmod.py", &runs_boot(project));
        });
    });
}

#[test]
fn python_recursive_and_character_class_globs_are_read() {
    let cases = [
        "import sys\nfrom pathlib import Path\n\
         sys.path.insert(0, str(next(Path('.').rglob('sub'))))\nimport helper2\n",
        "import runpy, glob\nrunpy.run_path(glob.glob('**/helper2.py', recursive=True)[0])\n",
        "import sys, glob\nsys.path.insert(0, glob.glob('[l]ib/s[u]b')[0])\nimport helper2\n",
    ];
    each_holds(&cases, |check| {
        changed_asks_again(
            "python3 check.py",
            |project| {
                write(project, "lib/sub/helper2.py", "X = 1\n");
                write(project, "check.py", &format!("{check}print('{{}}')\n"));
                checkout_without_environment(project);
            },
            |project, marker| poison(project, "lib/sub/helper2.py", marker),
        );
    });
}

/// A checkout holding the package `tools` (`tools/boot.py`) and what
/// `prepare` writes there (python3 runs in the project), the hook `python3
/// check.py` approved; an edit of `tools/boot.py` must ask again.
fn boot_edit_asks_again(check: &str, prepare: &str) {
    changed_asks_again(
        "python3 check.py",
        |project| boot_checkout(project, check, prepare),
        |project, marker| poison(project, "tools/boot.py", marker),
    );
}

/// Writes the checkout [`boot_edit_asks_again`] reads.
fn boot_checkout(project: &std::path::Path, check: &str, prepare: &str) {
    write(project, "tools/__init__.py", "");
    write(project, "tools/boot.py", "def main(*a):\n    return 0\n");
    write(project, "check.py", &format!("{check}print('{{}}')\n"));
    if !prepare.is_empty() {
        let status = std::process::Command::new("python3")
            .args(["-c", prepare])
            .current_dir(project)
            .status()
            .expect("python3 runs");
        assert!(status.success(), "{prepare}");
    }
    checkout_without_environment(project);
}

/// The checkout of [`boot_edit_asks_again`], its hook unpickling what
/// `prepare` wrote: a pickle is code its data holds (its `__reduce__` may
/// call `os.system` itself, naming no module of the project), which no
/// reading binds, so the hook cannot be approved (red team round 49, H6:
/// before, the modules a pickle names were bound, R31-5 / R32-10), and an
/// edit of `tools/boot.py` never runs.
pub(crate) fn unpickling_is_never_approved(check: &str, prepare: &str) {
    let (home, project) = crate::dialects::home_with("[claude]");
    boot_checkout(&project, check, prepare);
    let settings = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash|terminal", "hooks": [
        {"type": "command", "command": "python3 check.py"}
    ]}]}});
    write(&project, ".claude/settings.json", &settings.to_string());
    let tried = crate::dialects::emit_terminal(&home, &project, "ls", true);
    assert_ne!(
        tried["runs"][0]["status"], "completed",
        "{check}: {tried:#}"
    );
    assert!(
        tried.to_string().contains("cannot be approved"),
        "{check}: {tried:#}"
    );
    let marker = project.join("PWNED");
    poison(&project, "tools/boot.py", &marker);
    let emitted = crate::dialects::emit_terminal(&home, &project, "ls", false);
    assert!(!marker.exists(), "{check}: {emitted:#}");
}

#[test]
fn a_hook_unpickling_what_it_reads_is_never_approved() {
    let load = "import pickle, sys\nsys.path.insert(0, '.')\n";
    let dump = "import pickle, sys\nsys.path.insert(0, '.')\nimport tools.boot as b\n";
    let binunicode = "import struct\n\
        s = lambda t: b'X' + struct.pack('<I', len(t)) + t.encode()\n\
        open('data.pkl', 'wb').write(b'\\x80\\x04' + s('tools.boot') + s('main') + b'\\x93)R.')\n";
    let cases: [(String, String); 5] = [
        (
            format!("{load}pickle.load(open('data.pkl', 'rb'))\n"),
            binunicode.to_owned(),
        ),
        (
            format!("{load}pickle.load(open('data.pkl', 'rb'))\n"),
            "open('data.pkl', 'w').write('cbuiltins\\n__import__\\n(Vtools.boot\\ntR.')".to_owned(),
        ),
        (
            format!("{load}import gzip\npickle.load(gzip.open('data.pkl.gz'))\n"),
            format!(
                "{dump}import gzip\ngzip.open('data.pkl.gz', 'wb').write(pickle.dumps(b.main, protocol=2))\n"
            ),
        ),
        (
            format!(
                "{load}import base64\npickle.loads(base64.b64decode(open('data.b64').read()))\n"
            ),
            format!(
                "{dump}import base64\nopen('data.b64', 'wb').write(base64.b64encode(pickle.dumps(b.main)))\n"
            ),
        ),
        (
            format!("{load}import shelve\nshelve.open('db', flag='r')['k']\n"),
            format!(
                "{dump}import dbm.dumb, shelve\ns = shelve.Shelf(dbm.dumb.open('db', 'c'))\ns['k'] = b.main\ns.close()\n"
            ),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases
        .iter()
        .map(|(c, p)| (c.as_str(), p.as_str()))
        .collect();
    each_holds(&cases, |(check, prepare)| {
        unpickling_is_never_approved(check, prepare)
    });
}

#[test]
fn package_metadata_the_code_reads_is_bound() {
    let meta = "import os\nos.makedirs('ok-1.0.dist-info')\n\
        open('ok-1.0.dist-info/METADATA', 'w').write('Metadata-Version: 2.1\\nName: ok\\nVersion: 1.0\\n')\n";
    let top_level = "import importlib.metadata as m, importlib\n\
        for n in m.distribution('ok').read_text('top_level.txt').split():\n    importlib.import_module(n)\n";
    let extras = "import importlib.metadata as m, importlib\n\
        for e in m.metadata('ok').get_all('Provides-Extra') or []:\n    importlib.import_module(e)\n";
    let cases: [(&str, String); 2] = [
        (
            top_level,
            format!("{meta}open('ok-1.0.dist-info/top_level.txt', 'w').write('tools.boot\\n')\n"),
        ),
        (
            extras,
            format!(
                "{meta}open('ok-1.0.dist-info/METADATA', 'a').write('Provides-Extra: tools.boot\\n')\n"
            ),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases.iter().map(|(c, p)| (*c, p.as_str())).collect();
    each_holds(&cases, |(check, prepare)| {
        boot_edit_asks_again(check, prepare)
    });
}
