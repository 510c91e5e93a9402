//! What one program of the table reaches of the folders it runs in: its
//! manifests there and above, their includes, and what its subcommand,
//! scripts and settings add ([`super::reached_within`] calls it).

use super::*;

pub(super) fn program_reaches(
    program: &Program,
    read: &options::Read,
    base: &Path,
    at: (bool, usize),
    found: &mut Reached,
) {
    // What it runs inherits what it was given (`make CARGO_HOME=ch`: make
    // exports a variable given as an operand too) and what its makefiles
    // export (C-01g); the commands after it do not.
    let entry = found.inherited.clone();
    set_all(&mut found.inherited, read.env.iter().cloned());
    // `just CARGO_HOME=ch b`, `--set CARGO_HOME ch`, `-F x.env`: values
    // its recipes may be given (round 73), read as given to them all.
    let overrides = found.overrides.clone();
    if program.includes == Includes::Just {
        // `JUST_DOTENV_COMMAND=…`: variables a command prints (round 73).
        if found
            .inherited
            .iter()
            .any(|(name, _)| name == "JUST_DOTENV_COMMAND")
        {
            found.computed.get_or_insert_with(|| {
                "just loads variables a command prints (`JUST_DOTENV_COMMAND`)".to_owned()
            });
        }
        let mut args = read.args.clone();
        for (name, flag) in [("JUST_DOTENV_FILENAME", "-F"), ("JUST_DOTENV_PATH", "-E")] {
            if let Some((_, file)) = found.inherited.iter().find(|(known, _)| known == name) {
                args.extend([flag.to_owned(), file.clone()]);
            }
        }
        match super::just_env::given(&args, base) {
            Ok(given) => {
                set_all(&mut found.inherited, given.clone());
                found.overrides = given;
            }
            Err(why) => {
                found.computed.get_or_insert(why);
            }
        }
    }
    reaches_given(program, read, base, at, found);
    found.inherited = entry;
    found.overrides = overrides;
}

fn reaches_given(
    program: &Program,
    read: &options::Read,
    base: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) {
    let plain_words = &read.words;
    let tool = match program.node_tool {
        NodeTool::None => None,
        NodeTool::First => plain_words.first(),
        NodeTool::After(subcommands) => plain_words
            .split_first()
            .filter(|(sub, _)| subcommands.contains(&sub.as_str()))
            .and_then(|(_, rest)| rest.first()),
    };
    let mut dirs = run_folders(base, &read.chdir);
    // `npm start -ws`, `npm -w web test`, `npx -w b x`: the workspaces it
    // runs in (round 68: `npm exec -ws` too).
    if program.manifests.first() == Some(&"package.json") {
        // From the folder it starts in: `-w web` is no folder there.
        let roots: Vec<PathBuf> = std::iter::once(base.to_path_buf())
            .chain(dirs.clone())
            .collect();
        for dir in roots {
            match workspaces::picked(&read.args, &dir, &mut found.listed) {
                Ok(picked) => {
                    for folder in picked {
                        if !dirs.contains(&folder) {
                            dirs.push(folder);
                        }
                    }
                }
                Err(why) => {
                    found.computed.get_or_insert(why);
                }
            }
        }
    }
    if let Some(tool) = tool {
        // `npx eslint x.js`: the tool's own settings too (round 62).
        let at = plain_words
            .iter()
            .position(|word| word == tool)
            .unwrap_or(0);
        let line = shlex::try_join(plain_words[at..].iter().map(String::as_str));
        for dir in &dirs {
            node_tool(tool, dir, project_hook, found);
            if let Ok(line) = &line {
                // In a workspace it picks (`npx -w b sh t.sh`), what the
                // line runs there (round 68).
                if dir != base {
                    super::follow::recipe_files(line, dir, found);
                }
                reached_within(line, dir, project_hook, found, depth + 1);
            }
        }
        return;
    }
    // `just tools/check`: the justfile of `tools`.
    if program.includes == Includes::Just
        && let Some((folder, _)) = plain_words.first().and_then(|w| w.rsplit_once('/'))
    {
        dirs = dirs
            .iter()
            .flat_map(|dir| run_folders(dir, &[folder.to_owned()]))
            .collect();
    }
    // Named files are relative to where it runs after its `-C` (make) or
    // where it started (just): both are bound.
    let mut named: Vec<PathBuf> = Vec::new();
    for dir in std::iter::once(base).chain(dirs.iter().map(PathBuf::as_path)) {
        for file in read.files.iter().chain(&read.manifests) {
            named.extend(run_folders(dir, std::slice::from_ref(file)));
            // `invoke -c ops`: the module `ops.py` (round 63).
            if program.names.contains(&"invoke") {
                named.extend(run_folders(dir, &[format!("{file}.py")]));
            }
        }
    }
    // A manifest named by path: the program reads the rest beside it.
    let mut read_in = dirs.clone();
    for dir in &dirs {
        for manifest in &read.manifests {
            for path in run_folders(dir, std::slice::from_ref(manifest)) {
                read_in.extend(path.parent().map(Path::to_path_buf));
            }
        }
    }
    read_in.dedup();
    let include_dirs: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|dir| {
            read.include_dirs
                .iter()
                .flat_map(|i| run_folders(dir, std::slice::from_ref(i)))
        })
        .collect();
    for dir in &read_in {
        let mut files = named.clone();
        files.extend(definitions_in(
            program,
            read,
            dir,
            (project_hook, depth),
            found,
        ));
        let together = std::mem::replace(
            &mut found.makefiles_together,
            files.iter().filter(|file| file.is_file()).count() > 1,
        );
        // `-f a.mk -f b.mk`, `include env.mk`: a variable any of them
        // exports is in every recipe's environment, those read first too.
        if program.includes == Includes::Make {
            let mut searched = vec![dir.clone()];
            searched.extend(include_dirs.iter().cloned());
            let exports = make_text::make_exports(&files, &searched);
            set_all(&mut found.inherited, exports);
        }
        for file in files {
            found.add(file.clone());
            if program.includes != Includes::None {
                let mut searched = vec![dir.clone()];
                searched.extend(include_dirs.iter().cloned());
                follow_includes(&file, &searched, program.includes, found, 0);
            }
        }
        found.makefiles_together = together;
    }
}

/// The manifests `program` reads in `dir` and, looking upward, those of the
/// folders above (returned, to follow their includes); binds what its
/// subcommand adds and the scripts of a `package.json` it runs.
fn definitions_in(
    program: &Program,
    read: &options::Read,
    dir: &Path,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
) -> Vec<PathBuf> {
    let plain_words = &read.words;
    let mut manifests: Vec<PathBuf> = program.manifests.iter().map(|m| dir.join(m)).collect();
    if program.includes == Includes::Just {
        manifests.extend(case_variants(dir));
    }
    if program.upward {
        for folder in dir.ancestors().skip(1) {
            for manifest in program.manifests {
                let path = folder.join(manifest);
                if std::fs::symlink_metadata(&path).is_ok() {
                    manifests.push(path);
                }
            }
            if program.includes == Includes::Just {
                manifests.extend(case_variants(folder));
            }
        }
    }
    for (subcommand, roots) in program.extra {
        if plain_words.first().is_some_and(|w| w == subcommand) {
            roots.iter().for_each(|root| found.add(dir.join(root)));
        }
    }
    if program.manifests.first() == Some(&"package.json") {
        package_scripts(plain_words, dir, (project_hook, depth), found);
    }
    if program.manifests.first() == Some(&"Cargo.toml") {
        cargo_config_files(&manifests, found);
        let words = (plain_words.as_slice(), read);
        cargo_code::read(words, &manifests, (project_hook, depth), found);
    }
    if let Some(name) = program.names.first() {
        let tool = (*name, program.manifests, plain_words.as_slice());
        tool_code::read(
            tool,
            &read.args,
            &manifests,
            dir,
            (project_hook, depth),
            found,
        );
    }
    if program.manifests.contains(&table::TOOLCHAIN[0]) {
        // rustup looks up from where it runs: each folder up to the one the
        // command starts in, present or absent (round 56, r14).
        let within = dir
            .ancestors()
            .take_while(|folder| folder.starts_with(&found.top));
        for path in within.flat_map(|f| table::TOOLCHAIN.iter().map(move |t| f.join(t))) {
            if !manifests.contains(&path) {
                manifests.push(path);
            }
        }
        toolchain::by_path(&manifests, found);
    }
    manifests
}

/// The files of `dir` named `justfile` in another case (`JustFile`): `just`
/// reads them too.
fn case_variants(dir: &Path) -> Vec<PathBuf> {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    listing
        .flatten()
        .take(10_000)
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().to_ascii_lowercase();
            name == "justfile" || name == ".justfile"
        })
        .map(|entry| entry.path())
        .collect()
}
