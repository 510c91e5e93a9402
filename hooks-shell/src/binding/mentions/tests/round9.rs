//! Red team round 9: a `CDPATH` list (R9-6): each of its entries is a
//! folder `cd`'s relative folder is looked up from.

use super::{named_by, project, write};

#[test]
fn each_entry_of_a_cdpath_list_is_a_folder_cd_looks_in() {
    let (_dir, p) = project();
    write(&p.join("vendor/pkg/x.sh"), "true\n");
    std::fs::create_dir_all(p.join("a")).expect("mkdir");
    let mut missing = Vec::new();
    for command in [
        "CDPATH=.:vendor; cd pkg >/dev/null && . ./x.sh",
        "CDPATH=:vendor; cd pkg && . ./x.sh",
        "CDPATH=a:vendor; cd pkg && . ./x.sh",
        "export CDPATH=:vendor; cd pkg && . ./x.sh",
        "CDPATH=\"$CLAUDE_PROJECT_DIR/a:$CLAUDE_PROJECT_DIR/vendor\"; cd pkg && . ./x.sh",
        "CDPATH=vendor; cd pkg && . ./x.sh",
    ] {
        let named = named_by(&p, command, None);
        if !named.contains(&"vendor/pkg/x.sh".to_owned()) {
            missing.push(format!("{command}: {named:?}"));
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
    // The same in a script the hook runs.
    let script = "#!/bin/sh\ncd \"$CLAUDE_PROJECT_DIR\"\nCDPATH=.:vendor\ncd pkg && . ./x.sh\n";
    let named = named_by(&p, "x", Some(("hooks/a.sh", script)));
    assert!(named.contains(&"vendor/pkg/x.sh".to_owned()), "{named:?}");
}
