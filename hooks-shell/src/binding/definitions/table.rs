//! The table of programs that run the project's definitions: their names,
//! the manifests they read, how their options are read.

use super::options::{JUST, NONE, Options};
use super::{Includes, NodeTool, Program};

const NPM: &[&str] = &[
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    ".npmrc",
];
const PNPM: &[&str] = &[
    "package.json",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    ".npmrc",
    ".pnpmfile.cjs",
];
const YARN: &[&str] = &[
    "package.json",
    "yarn.lock",
    ".yarnrc.yml",
    ".yarnrc",
    ".pnp.cjs",
    ".yarn/releases",
    ".yarn/plugins",
];
/// The files that choose the Rust toolchain rustup runs.
pub(super) const TOOLCHAIN: &[&str] = &["rust-toolchain.toml", "rust-toolchain"];
const BUN: &[&str] = &["package.json", "bun.lockb", "bun.lock", "bunfig.toml"];
const MAKEFILES: &[&str] = &["GNUmakefile", "makefile", "Makefile"];
/// `just` matches these names in any case (a `JustFile` found is bound too).
const JUSTFILES: &[&str] = &["justfile", ".justfile", "Justfile", "JUSTFILE", ".env"];
/// `-w pk/a`: a workspace by its folder runs there (round 65); one named
/// by its package name is not looked up.
const NPM_DIR: Options = lists(&["-C", "--prefix", "-w", "--workspace"], &[], &[]);
const PNPM_DIR: Options = lists(&["-C", "--dir"], &[], &[]);
const CWD: Options = lists(&["--cwd"], &[], &[]);
const BUN_OPTIONS: Options = lists(&["--cwd"], &["-c", "--config"], &[]);
const GRADLE: &[&str] = &[
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    "gradle.properties",
    "gradle/wrapper",
    "buildSrc",
];

/// The table (see the module documentation of [`super`]).
pub(super) const PROGRAMS: &[Program] = &[
    node(&["npm"], NPM, NodeTool::After(&["exec", "x"]), NPM_DIR),
    node(&["npx"], NPM, NodeTool::First, NPM_DIR),
    node(
        &["pnpm"],
        PNPM,
        NodeTool::After(&["exec", "dlx", "x"]),
        PNPM_DIR,
    ),
    node(&["pnpx"], PNPM, NodeTool::First, PNPM_DIR),
    node(
        &["yarn"],
        YARN,
        NodeTool::After(&["exec", "dlx", "run"]),
        CWD,
    ),
    node(&["bun"], BUN, NodeTool::After(&["x", "exec"]), BUN_OPTIONS),
    node(&["bunx"], BUN, NodeTool::First, BUN_OPTIONS),
    Program {
        includes: Includes::Make,
        options: Options::Make,
        upward: false,
        ..plain(&["make", "gmake"], MAKEFILES)
    },
    Program {
        includes: Includes::Just,
        options: Options::Exact(&JUST),
        ..plain(&["just"], JUSTFILES)
    },
    Program {
        extra: &[("run", &["src"]), ("xtask", &["xtask"])],
        options: lists(&["-C"], &["--config"], &["--manifest-path"]),
        ..plain(
            &["cargo"],
            &[
                "Cargo.toml",
                "Cargo.lock",
                ".cargo/config.toml",
                ".cargo/config",
                "build.rs",
                "rust-toolchain.toml",
                "rust-toolchain",
            ],
        )
    },
    // rustup's proxies: each runs the toolchain the nearest
    // `rust-toolchain.toml` names (round 55, H55-1).
    plain(
        &[
            "rustc",
            "rustfmt",
            "rustdoc",
            "cargo-fmt",
            "cargo-clippy",
            "clippy-driver",
            "rust-analyzer",
            "rust-gdb",
            "rust-lldb",
            "rust-gdbgui",
            "rls",
            "cargo-miri",
        ],
        TOOLCHAIN,
    ),
    Program {
        options: lists(&["--directory", "--project"], &["--config-file"], &[]),
        ..plain(
            &["uv"],
            &["pyproject.toml", "uv.lock", "uv.toml", ".python-version"],
        )
    },
    Program {
        options: lists(&["-C", "--directory", "-P", "--project"], &[], &[]),
        ..plain(
            &["poetry"],
            &["pyproject.toml", "poetry.lock", "poetry.toml"],
        )
    },
    Program {
        options: lists(&["-p", "--project"], &[], &[]),
        ..plain(&["pdm"], &["pyproject.toml", "pdm.lock", "pdm.toml"])
    },
    plain(&["hatch"], &["pyproject.toml", "hatch.toml"]),
    plain(&["pipenv"], &["Pipfile", "Pipfile.lock"]),
    Program {
        options: lists(&["--root"], &["-c", "--conf"], &[]),
        // tox 4: `tox.toml`, and `toxfile.py`, imported as a plugin on
        // every run (round 65).
        ..plain(
            &["tox"],
            &[
                "tox.ini",
                "tox.toml",
                "pyproject.toml",
                "setup.cfg",
                "toxfile.py",
            ],
        )
    },
    Program {
        options: lists(&[], &["-f", "--noxfile"], &[]),
        ..plain(&["nox"], &["noxfile.py"])
    },
    Program {
        options: lists(&["-d", "--dir"], &["-t", "--taskfile"], &[]),
        ..plain(
            &["task", "go-task"],
            &[
                "Taskfile.yml",
                "Taskfile.yaml",
                "taskfile.yml",
                "taskfile.yaml",
                "Taskfile.dist.yml",
                "Taskfile.dist.yaml",
                "taskfile.dist.yml",
                "taskfile.dist.yaml",
            ],
        )
    },
    Program {
        options: lists(
            &["-C", "--directory"],
            &[
                "-f",
                "--rakefile",
                "-r",
                "--require",
                "-I",
                "--libdir",
                "-R",
                "--rakelibdir",
            ],
            &[],
        ),
        ..plain(
            &["rake"],
            &[
                "Rakefile",
                "rakefile",
                "Rakefile.rb",
                "rakefile.rb",
                "rakelib",
            ],
        )
    },
    Program {
        options: lists(&[], &["--gemfile"], &[]),
        ..plain(&["bundle"], &["Gemfile", "Gemfile.lock", ".bundle/config"])
    },
    Program {
        options: lists(
            &["-p", "--project-dir"],
            &["-c", "--settings-file", "-I", "--init-script"],
            &["-b", "--build-file"],
        ),
        ..plain(&["gradle", "gradlew"], GRADLE)
    },
    Program {
        options: lists(&[], &["-s", "--settings"], &["-f", "--file"]),
        ..plain(&["mvn", "mvnw"], &["pom.xml", ".mvn"])
    },
    Program {
        options: lists(&["-d", "--working-dir"], &[], &[]),
        ..plain(&["composer"], &["composer.json", "composer.lock"])
    },
    Program {
        options: lists(&[], &["-c", "--config"], &[]),
        ..plain(&["deno"], &["deno.json", "deno.jsonc", "deno.lock"])
    },
    Program {
        options: lists(&["-C"], &["-modfile"], &[]),
        ..plain(&["go"], &["go.mod", "go.sum", "go.work"])
    },
    // Programs that load code their settings name where they run (red
    // team round 33): Flask's app (`FLASK_APP`, `app.py`, `wsgi.py`),
    // python-dotenv's `.env` given to what it runs, pip's build backend
    // and `attr:` versions, cfn-lint's `append_rules`.
    plain(&["flask"], &[".flaskenv", ".env", "app.py", "wsgi.py"]),
    plain(&["dotenv"], &[".env"]),
    plain(
        &["pip", "pip3"],
        &["pyproject.toml", "setup.cfg", "setup.py"],
    ),
    plain(
        &["cfn-lint"],
        &[".cfnlintrc", ".cfnlintrc.yaml", ".cfnlintrc.yml"],
    ),
    // Tools whose settings are code or run code (red team round 62): what
    // those settings name is read by `tool_code`.
    Program {
        options: lists(&[], &["-c", "--config"], &[]),
        settings_only: true,
        ..plain(&["eslint"], ESLINT)
    },
    Program {
        options: lists(&[], &["--config"], &[]),
        settings_only: true,
        ..plain(&["prettier"], PRETTIER)
    },
    Program {
        options: lists(&[], &["--config"], &[]),
        settings_only: true,
        ..plain(&["stylelint"], STYLELINT)
    },
    Program {
        options: lists(&[], &["--config", "--append-config"], &[]),
        settings_only: true,
        ..plain(&["flake"], &[".flake8", "setup.cfg", "tox.ini"])
    },
    Program {
        options: lists(&[], &["--rcfile"], &[]),
        settings_only: true,
        ..plain(
            &["pylint"],
            &[
                ".pylintrc",
                "pylintrc",
                ".pylintrc.toml",
                "pylintrc.toml",
                "pyproject.toml",
                "setup.cfg",
                "tox.ini",
            ],
        )
    },
    Program {
        options: lists(&[], &["--config-file"], &[]),
        settings_only: true,
        ..plain(
            &["mypy", "dmypy"],
            &["mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"],
        )
    },
    Program {
        options: lists(&[], &["-c", "--config"], &[]),
        ..plain(
            &["pre-commit"],
            &[".pre-commit-config.yaml", ".pre-commit-config.yml"],
        )
    },
    Program {
        options: lists(
            &["-r", "--search-root"],
            &["-c", "--collection", "-f", "--config"],
            &[],
        ),
        ..plain(
            &["invoke", "inv"],
            &[
                "tasks.py",
                "tasks",
                "invoke.yaml",
                "invoke.yml",
                "invoke.json",
            ],
        )
    },
    Program {
        options: lists(&["-S"], &[], &[]),
        ..plain(
            &["cmake"],
            &[
                "CMakeLists.txt",
                "CMakePresets.json",
                "CMakeUserPresets.json",
            ],
        )
    },
    Program {
        options: lists(&["-C"], &["-f"], &[]),
        upward: false,
        ..plain(&["ninja"], &["build.ninja"])
    },
    plain(
        &["meson"],
        &["meson.build", "meson_options.txt", "meson.options"],
    ),
    // The tests a build folder's `CTestTestfile.cmake` records (round 65).
    Program {
        options: lists(&["--test-dir"], &[], &[]),
        upward: false,
        ..plain(
            &["ctest"],
            &[
                "CTestTestfile.cmake",
                "CTestCustom.cmake",
                "CTestCustom.ctest",
            ],
        )
    },
];

const ESLINT: &[&str] = &[
    "eslint.config.js",
    "eslint.config.mjs",
    "eslint.config.cjs",
    "eslint.config.ts",
    "eslint.config.mts",
    "eslint.config.cts",
    ".eslintrc",
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.json",
    ".eslintrc.yaml",
    ".eslintrc.yml",
    "package.json",
];
const PRETTIER: &[&str] = &[
    "prettier.config.js",
    "prettier.config.mjs",
    "prettier.config.cjs",
    "prettier.config.ts",
    ".prettierrc",
    ".prettierrc.json",
    ".prettierrc.json5",
    ".prettierrc.yaml",
    ".prettierrc.yml",
    ".prettierrc.toml",
    ".prettierrc.js",
    ".prettierrc.mjs",
    ".prettierrc.cjs",
    ".prettierrc.ts",
    "package.json",
    "package.yaml",
];
const STYLELINT: &[&str] = &[
    "stylelint.config.js",
    "stylelint.config.mjs",
    "stylelint.config.cjs",
    ".stylelintrc",
    ".stylelintrc.js",
    ".stylelintrc.cjs",
    ".stylelintrc.json",
    ".stylelintrc.yaml",
    ".stylelintrc.yml",
    "package.json",
];

const fn plain(names: &'static [&'static str], manifests: &'static [&'static str]) -> Program {
    Program {
        names,
        manifests,
        extra: &[],
        includes: Includes::None,
        node_tool: NodeTool::None,
        options: NONE,
        upward: true,
        settings_only: false,
    }
}

const fn lists(
    dir: &'static [&'static str],
    file: &'static [&'static str],
    manifest: &'static [&'static str],
) -> Options {
    Options::Lists {
        dir,
        file,
        manifest,
    }
}

const fn node(
    names: &'static [&'static str],
    manifests: &'static [&'static str],
    node_tool: NodeTool,
    options: Options,
) -> Program {
    Program {
        node_tool,
        options,
        ..plain(names, manifests)
    }
}
