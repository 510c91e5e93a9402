//! Tests of the module folders a hook's text names.

use super::*;

fn spoken(text: &str, folder: Option<&Path>) -> Spoken {
    let mut spoken = Spoken::default();
    spoken.add(&[text.to_owned()], folder, Path::new("/p"));
    spoken
}

#[test]
fn the_inherited_value_and_the_hosts_variables_resolve_and_others_refuse() {
    let (cwd, project) = (Path::new("/p"), Path::new("/p"));
    let none = spoken("", None);
    let idiom = "lib${PYTHONPATH:+:$PYTHONPATH}";
    let folders = none.folder(idiom, "PYTHONPATH", cwd, project, None);
    assert_eq!(folders.expect("known"), [PathBuf::from("/p/lib")]);
    let top = none.folder(
        "$(git rev-parse --show-toplevel 2>/dev/null)/lib",
        "",
        cwd,
        project,
        None,
    );
    assert_eq!(top.expect("known"), [PathBuf::from("/p/lib")]);
    // A variable only the host sets: its default (`venv/bin/activate`).
    let restored = none.folder("${_OLD_VIRTUAL_PYTHONHOME:-}", "", cwd, project, None);
    assert!(restored.expect("known").is_empty());
    let defaulted = none.folder("${LIBS:-vendor}", "", cwd, project, None);
    assert_eq!(defaulted.expect("known"), [PathBuf::from("/p/vendor")]);
    let unknown = none.folder("$(dirname $X)/lib", "PERL5LIB", cwd, project, None);
    assert!(
        matches!(unknown, Err(BindError::UnknownFolder(_))),
        "{unknown:?}"
    );
    // A variable the text sets to what cannot be known.
    let set = spoken("D=$(mktemp -d)", None);
    assert!(set.folder("$D", "", cwd, project, None).is_err());
}

#[test]
fn the_folder_of_the_script_is_read_in_its_usual_spellings() {
    let folder = Path::new("/p/t");
    for line in [
        "cd \"$(dirname \"$0\")\"",
        "cd $( cd -- \"$( dirname -- \"${BASH_SOURCE[0]}\" )\" &> /dev/null && pwd )",
        "D=$(dirname \"$(readlink -f \"$0\")\"); cd \"$D\"",
    ] {
        let text = with_project(&[line.to_owned()], Path::new("/p"), Path::new("/p"));
        let spoken = spoken(&text[0], Some(folder));
        let (known, unknown) = spoken.cd_targets(Path::new("/p"), Path::new("/p"));
        assert_eq!(known, [PathBuf::from("/p/t")], "{line}");
        assert_eq!(unknown, None, "{line}");
    }
}

#[test]
fn settings_inside_a_command_substitution_are_read() {
    assert_eq!(
        split("cd $(dirname $X)/a && b;c"),
        ["cd", "$(dirname $X)/a", "b", "c", "dirname", "$X"]
    );
    let spoken = spoken(
        "out=$(PYTHONPATH=lib python3 check.py); x=`PERL5LIB=inc perl t`",
        None,
    );
    assert_eq!(spoken.assigned("PYTHONPATH")[0].0, "lib");
    assert_eq!(spoken.assigned("PERL5LIB")[0].0, "inc");
}

#[test]
fn quoted_folders_are_read_where_code_changes_its_search_path() {
    let python = "import os, sys\nsys.path[:0] = [os.path.abspath(\"lib\")]\nprint('{}')\n";
    assert_eq!(literal_folders(python), ["lib"]);
    assert!(literal_folders("print('lib')\n").is_empty());
    let text = "import sys, site\nsys.path.insert(0, \"lib\")\nsite.addsitedir(\"vendor\")\n";
    assert_eq!(literal_folders(text), ["lib", "vendor"]);
    // `-c` code as the shell left it, and a folder it moves into.
    let code = r#"import os; os.chdir(\"sub\"); os.chdir('b'); import subprocess"#;
    assert_eq!(literal_folders(code), ["sub", "b"]);
    let perl = "use lib q(lib);\nBEGIN { push @INC, qw(. inc) }\nuse lib \"$FindBin::Bin/../x\";\n\
                use if 1, lib => \"a\";\nBEGIN { splice @INC, 0, 0, 'b'; }\n";
    let found = ["lib", ".", "inc", "$FindBin::Bin/../x", "a", "b"];
    assert_eq!(literal_folders(perl), found);
    // A launcher that sets the variable in code (R26-8).
    let launcher = "env = dict(os.environ, PYTHONPATH=\"lib\")\n";
    assert_eq!(literal_folders(launcher), ["lib"]);
}

#[test]
fn a_setting_whose_name_is_built_from_pieces_is_unknown() {
    for text in [
        "export PYTHON${1}=\"$(ls -d z*)\"",
        "declare -x -- \"PYTHON$1=lib\"",
        "env PYTHON$1=lib python3 c.py",
        "eval \"$(cat settings)\"",
        "export $(cat .env)",
    ] {
        assert!(spoken(text, None).unknown_settings().is_some(), "{text}");
    }
    // A known name built from pieces is read as written out.
    let known = spoken("P=PYTHON\nexport ${P}PATH=lib", None);
    assert_eq!(known.unknown_settings(), None);
    assert_eq!(known.assigned("PYTHONPATH").len(), 1);
    for text in [
        "export PATH=\"$HOME/bin:$PATH\"",
        "local dir=\"$(dirname \"$0\")\"",
        "env -u X python3 \"$script\"",
        "set -- \"$@\"",
        "readonly LOG=\"${LOG:-x}\"",
    ] {
        assert_eq!(spoken(text, None).unknown_settings(), None, "{text}");
    }
}

#[test]
fn a_folder_a_glob_copies_outside_the_project_is_bound() {
    let project = tempfile::tempdir().expect("project");
    let project = project.path();
    std::fs::create_dir_all(project.join("lib")).expect("lib");
    let text = "cp lib/*.py /tmp/x/\nPYTHONPATH=/tmp/x python3 c.py";
    let mut spoken = Spoken::default();
    spoken.add(&[text.to_owned()], None, project);
    let copied = spoken.copied_from(&["PYTHONPATH"], project, project);
    assert_eq!(copied.expect("known"), [project.join("lib")]);
}

#[test]
fn an_ifs_of_other_than_blanks_is_unknown_as_the_hook_runs_it() {
    // Read as `Spoken::new` reads a command: quotes gone (R28-9, R28b-8, R28b-11).
    let (cwd, project) = (Path::new("/p"), Path::new("/p"));
    let unknown =
        |text: &str| Spoken::new(&[text.to_owned()], &[], cwd, project).unknown_settings();
    for text in [
        "IFS=,; v=\"PYTHONPATH=lib,python3,c.py\"; env $v",
        "IFS=\" ,\"; env $v",
        "IFS=''; env $v",
        "read -r IFS <<< ,",
        "printf -v IFS ,",
        "for IFS in ,; do env $v; done",
        "IFS+=,",
    ] {
        assert!(unknown(text).is_some(), "{text}");
    }
    for text in [
        "set -euo pipefail; IFS=$'\\n\\t'",
        "IFS=$'\\n'",
        "while IFS= read -r line; do echo \"$line\"; done < f",
        "while IFS=, read -r a b; do echo \"$a\"; done < f",
        "unset IFS",
    ] {
        assert_eq!(unknown(text), None, "{text}");
    }
}

#[test]
fn a_copy_of_the_folder_it_runs_in_binds_each_folder_there() {
    // Read as `Spoken::new` reads a command: quotes gone (R28c-4).
    let project = tempfile::tempdir().expect("project");
    let project = project.path();
    for folder in ["lib", "docs", ".git", "sub"] {
        std::fs::create_dir_all(project.join(folder)).expect("folder");
    }
    let copied = |text: &str, cwd: &Path| {
        let text = format!("{text}\nPYTHONPATH=/tmp/x/lib python3 check.py");
        let spoken = Spoken::new(&[text], &[], cwd, project);
        let mut copied = spoken
            .copied_from(&["PYTHONPATH"], cwd, project)
            .expect("known");
        copied.sort();
        copied
    };
    let every: Vec<PathBuf> = ["docs", "lib", "sub"].map(|f| project.join(f)).to_vec();
    for text in [
        "cp -r . /tmp/x",
        "cp -r ./ /tmp/x",
        "cp -r ./. /tmp/x",
        "cp -r \\. /tmp/x",
        "cp -a . /tmp/x",
        "cp -r \"$PWD\" /tmp/x",
        "cp -r ${PWD}/ /tmp/x",
        "cp -r \"$(pwd)\" /tmp/x",
        "cp -r \"$(pwd -P)\" /tmp/x",
        "cp -r `pwd` /tmp/x",
        "cp -r \"$CLAUDE_PROJECT_DIR\" /tmp/x",
        "cp -r ${X:-.} /tmp/x",
        "cp -r {.,} /tmp/x",
        "cp ~+/lib/* /tmp/x/",
        "cp -r ~- /tmp/x",
        "tar cf - . | tar xf - -C /tmp/x",
        "tar -C . -cf - . | tar -C /tmp/x -xf -",
        "rsync -a . /tmp/x",
        "zip -qr /tmp/x.zip . && unzip -oq /tmp/x.zip -d /tmp/x",
        "find . | cpio -pdm /tmp/x",
        "ditto . /tmp/x",
        "D=$(pwd); cp -r $D /tmp/x",
        // A folder holding the project, or the one it runs in.
        "cp -r .. /tmp/x",
        "cp -r /* /tmp/x",
    ] {
        assert_eq!(copied(text, project), every, "{text}");
    }
    // From a folder it moves into first.
    let name = project.file_name().and_then(|n| n.to_str()).expect("name");
    let up = format!("cd .. && cp -r {name} /tmp/x");
    assert_eq!(copied(&up, project), every);
    let beside = "cd ../lib && cp -r . /tmp/x";
    assert_eq!(copied(beside, &project.join("sub")), [project.join("lib")]);
    // From a folder of the project: the folders of what holds it.
    assert_eq!(copied("cp -r .. /tmp/x", &project.join("sub")), every);
    assert!(copied("cp -r . /tmp/x", &project.join("sub")).is_empty());
    assert_eq!(copied("cp -r lib /tmp/x", project), [project.join("lib")]);
    for text in [
        "cp -r /usr/share/x /tmp/x",
        "cp -r \"$1\" /tmp/x",
        "cp -r $SRC /tmp/x",
    ] {
        assert!(copied(text, project).is_empty(), "{text}");
    }
    // No module folder outside the project: nothing is copied there.
    let inside = Spoken::new(
        &["cp -r . /tmp/x; PYTHONPATH=lib python3 c.py".to_owned()],
        &[],
        project,
        project,
    );
    assert!(
        inside
            .copied_from(&["PYTHONPATH"], project, project)
            .expect("known")
            .is_empty()
    );
}

#[test]
fn a_copy_of_a_folder_whose_path_holds_a_blank_is_read_whole() {
    let top = tempfile::tempdir().expect("top");
    let project = top.path().join("my  project");
    std::fs::create_dir_all(project.join("lib")).expect("lib");
    for text in [
        "cp -r \"$PWD\" /tmp/x",
        "cp -r \"$CLAUDE_PROJECT_DIR/\" /tmp/x",
    ] {
        let text = format!("{text}\nPYTHONPATH=/tmp/x/lib python3 check.py");
        let spoken = Spoken::new(std::slice::from_ref(&text), &[], &project, &project);
        let copied = spoken.copied_from(&["PYTHONPATH"], &project, &project);
        assert_eq!(copied.expect("known"), [project.join("lib")], "{text}");
    }
}
