//! Red team round 30: installed code that reaches a project file in ways
//! round 29's reading missed. A package and its submodule given apart
//! (`__import__('tools', fromlist=['boot'])`, R30-1), a project folder an
//! installed module puts on the module path (R30-2) or changes into
//! (`os.chdir`, R30-4) or makes a site folder (R30-3), an archive of any
//! name (R30-6), a wide string in a binary (R30-9), a start-up file too
//! large to read (R30-13), an object path (`tools.boot:main`, R30-15),
//! entry points found through `md.entry_points()` (R30-8) and a project
//! zip on the module path (R30-7): a change to the project file asks
//! again.

use std::path::Path;

use crate::dialects::write;
use crate::round28::{changed_asks_again, checkout_without_environment, site_of};
use crate::round29_environments::{boot_change_asks_again, runs_boot};

/// The hook importing the installed module `envmod`.
const IMPORTS_ENVMOD: &str = ".venv/bin/python -c 'import envmod; print(\"{}\")'";

#[test]
fn a_project_folder_installed_code_names_is_searched_for_its_other_words() {
    for envmod in [
        "__import__('tools', fromlist=['boot'])\n",
        "import importlib\nimportlib.import_module('.boot', 'tools')\n",
        "import sys\nsys.path.insert(0, 'tools')\nimport boot\n",
        "import os\nos.chdir('tools')\nimport boot\n",
        "import pkgutil\nENTRY = 'tools.boot:main'\n",
    ] {
        boot_change_asks_again(IMPORTS_ENVMOD, |_, site| {
            write(site, "envmod.py", envmod);
        });
    }
}

/// Writes a deflated zip at `path` holding `bootmod.py` = `source`.
fn deflated_zip(path: &Path, source: &str) {
    std::fs::create_dir_all(path.parent().expect("folder")).expect("folder");
    let status = std::process::Command::new("python3")
        .args(["-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n    z.writestr('bootmod.py', sys.argv[2])"])
        .arg(path)
        .arg(source)
        .status()
        .expect("python3 runs");
    assert!(status.success());
}

#[test]
fn an_archive_on_the_module_path_is_known_by_its_content_not_its_name() {
    let check = ".venv/bin/python check.py";
    boot_change_asks_again(check, |project, site| {
        deflated_zip(&site.join("bootlib"), &runs_boot(project));
        write(site, "b.pth", "bootlib\nimport bootmod\n");
    });
    boot_change_asks_again(check, |project, site| {
        deflated_zip(&site.join("data.bin"), &runs_boot(project));
        let loader = "import os, zipimport\nzipimport.zipimporter(os.path.join(os.path.dirname(__file__), 'data.bin')).load_module('bootmod')\n";
        write(site, "sitecustomize.py", loader);
    });
}

#[test]
fn a_wide_string_of_an_installed_binary_names_a_project_file() {
    boot_change_asks_again(".venv/bin/python check.py", |_, site| {
        let mut binary = b"\x7fELF\x02\x01\x01\0".to_vec();
        let wide = "python3 tools/boot.py";
        binary.extend(wide.chars().flat_map(|c| u32::from(c).to_le_bytes()));
        binary.extend([0u8; 8]);
        std::fs::create_dir_all(site).expect("site");
        std::fs::write(site.join("libx.so"), binary).expect("binary");
        write(
            site,
            "sitecustomize.py",
            "# ctypes.CDLL('libx.so') when asked\n",
        );
    });
}

#[test]
fn a_start_up_file_too_large_to_read_binds_the_whole_project() {
    boot_change_asks_again(".venv/bin/python check.py", |project, site| {
        let comment = format!("# {}\n", "x".repeat(1 << 20));
        write(site, "b.pth", &format!("{comment}import bootmod\n"));
        write(site, "bootmod.py", &runs_boot(project));
    });
}

#[test]
fn entry_points_loaded_by_any_spelling_are_read() {
    let loops = [
        "import importlib.metadata as md\nfor ep in md.entry_points().select(group='myplugins'):\n    ep.load()\n",
        "import importlib.metadata as md\nfor d in md.distributions():\n    [ep.load() for ep in d.entry_points if ep.group == 'myplugins']\n",
    ];
    for envmod in loops {
        boot_change_asks_again(IMPORTS_ENVMOD, |project, site| {
            write(site, "envmod.py", envmod);
            write(site, "evilplug.py", &runs_boot(project));
            let metadata = "evilplug-1.0.dist-info";
            write(
                site,
                &format!("{metadata}/METADATA"),
                "Name: evilplug\nVersion: 1.0\n",
            );
            write(
                site,
                &format!("{metadata}/entry_points.txt"),
                "[myplugins]\nevil = evilplug\n",
            );
        });
    }
}

#[test]
fn a_project_folder_installed_code_makes_a_site_folder_is_bound_with_its_pth_files() {
    // R30-3: Python runs the `.pth` files of a folder given to
    // `site.addsitedir`: a new one, or a changed one, asks again.
    let check = ".venv/bin/python check.py";
    let site_dir = |site: &Path| {
        write(
            site,
            "sitecustomize.py",
            "import site\nsite.addsitedir('vendor')\n",
        );
    };
    for pth in ["vendor/a.pth", "vendor/b.pth"] {
        changed_asks_again(
            check,
            |project| {
                let site = site_of(project);
                site_dir(&site);
                write(project, "vendor/a.pth", "import os\n");
                write(project, "check.py", "print('{}')\n");
                checkout_without_environment(project);
            },
            |project, marker| {
                let line = format!("import os; open({marker:?}, 'w')\n");
                write(project, pth, &line);
            },
        );
    }
}

#[test]
fn a_project_archive_python_runs_or_imports_from_binds_the_whole_project() {
    // R30-7: the members of a zip are compressed: what they run is unseen.
    boot_change_asks_again("PYTHONPATH=vendor.zip python3 check.py", |project, _| {
        deflated_zip(&project.join("vendor.zip"), &runs_boot(project));
        write(project, "check.py", "import bootmod\nprint('{}')\n");
    });
}
