//! `cargo xtask dist`: the release `hooks` binary (stripped: the release
//! profile says `strip = true`), its shell completions and man page (written
//! by the binary itself: `hooks completions SHELL`, `hooks manpage`), the
//! licenses, the README and SHA256SUMS under `target/dist/`, and all of them
//! in `target/dist/hermes-hooks-<version>-<target>.tar.gz` (with its own
//! `.sha256`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use super::workspace::{self, cargo};

/// Each shell `hooks completions` knows, and the file its script goes to.
pub const COMPLETIONS: &[(&str, &str)] = &[
    ("bash", "completions/hooks.bash"),
    ("zsh", "completions/_hooks"),
    ("fish", "completions/hooks.fish"),
    ("elvish", "completions/hooks.elv"),
    ("powershell", "completions/_hooks.ps1"),
];

/// The man page's path under the dist directory.
pub const MAN_PAGE: &str = "man/hooks.1";

/// Builds everything into `<target>/dist/` and prints what it wrote.
pub fn run(root: &Path) -> Result<()> {
    let metadata = workspace::metadata(root, true)?;
    let target = metadata["target_directory"]
        .as_str()
        .map_or_else(|| root.join("target"), PathBuf::from);
    let status = Command::new(cargo())
        .args([
            "build",
            "--release",
            "--locked",
            "-p",
            "hermes-hooks-cli",
            "--bin",
            "hooks",
        ])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release -p hermes-hooks-cli failed");
    }
    let binary = target
        .join("release")
        .join(format!("hooks{}", std::env::consts::EXE_SUFFIX));
    let dist = target.join("dist");
    if dist.exists() {
        std::fs::remove_dir_all(&dist).with_context(|| format!("clearing {}", dist.display()))?;
    }
    let mut written = Vec::new();
    written.push(copy_binary(&binary, &dist)?);
    for (shell, file) in COMPLETIONS {
        write(&dist, file, &produce(&binary, &["completions", shell])?)?;
        written.push((*file).to_owned());
    }
    write(&dist, MAN_PAGE, &produce(&binary, &["manpage"])?)?;
    written.push(MAN_PAGE.to_owned());
    for file in SHIPPED_DOCS {
        std::fs::copy(root.join(file), dist.join(file))
            .with_context(|| format!("copying {file} into {}", dist.display()))?;
        written.push((*file).to_owned());
    }
    let sums = sha256sums(&dist, &written)?;
    write(&dist, "SHA256SUMS", sums.as_bytes())?;
    written.push("SHA256SUMS".to_owned());
    for file in &written {
        println!("{}", dist.join(file).display());
    }
    let version = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "hermes-hooks-cli")
        .and_then(|p| p["version"].as_str())
        .context("cargo metadata lists no hermes-hooks-cli version")?
        .to_owned();
    let stem = archive_stem(&version, &host_target()?);
    let archive = dist.join(format!("{stem}.tar.gz"));
    write_archive(&dist, &written, &stem, &archive)?;
    let archive_name = format!("{stem}.tar.gz");
    let archive_sum = sha256sums(&dist, std::slice::from_ref(&archive_name))?;
    write(
        &dist,
        &format!("{archive_name}.sha256"),
        archive_sum.as_bytes(),
    )?;
    println!("{}", archive.display());
    println!("{}", dist.join(format!("{archive_name}.sha256")).display());
    Ok(())
}

/// The files of the root that ship beside the binary.
pub const SHIPPED_DOCS: &[&str] = &["LICENSE-MIT", "LICENSE-APACHE", "README.md"];

/// `hermes-hooks-<version>-<target>`: the archive's name without `.tar.gz`,
/// and the folder its files unpack into.
pub fn archive_stem(version: &str, target: &str) -> String {
    format!("hermes-hooks-{version}-{target}")
}

/// The target triple rustc builds for by default (`host:` of `rustc -vV`).
pub fn host_target() -> Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(|host| host.trim().to_owned())
        .context("rustc -vV printed no `host:` line")
}

/// Writes `files` (relative to `dist`) into a gzipped tarball at `archive`,
/// each under `<stem>/`, with its permissions (the binary stays executable).
pub fn write_archive(dist: &Path, files: &[String], stem: &str, archive: &Path) -> Result<()> {
    let out = std::fs::File::create(archive)
        .with_context(|| format!("creating {}", archive.display()))?;
    let encoder = flate2::write::GzEncoder::new(out, flate2::Compression::best());
    let mut builder = tar::Builder::new(encoder);
    builder.mode(tar::HeaderMode::Deterministic);
    for file in files {
        let path = dist.join(file);
        let mut source =
            std::fs::File::open(&path).with_context(|| format!("reading {}", path.display()))?;
        builder
            .append_file(format!("{stem}/{file}"), &mut source)
            .with_context(|| format!("adding {file} to {}", archive.display()))?;
    }
    let encoder = builder.into_inner().context("finishing the tar stream")?;
    encoder
        .finish()
        .with_context(|| format!("writing {}", archive.display()))?;
    Ok(())
}

/// Runs `binary args` and returns its stdout; fails clearly when the binary
/// does not know the subcommand (it lands with the `hooks` command's UX work).
pub fn produce(binary: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let output = Command::new(binary)
        .args(args)
        .output()
        .with_context(|| format!("running {}", binary.display()))?;
    let shown = format!("hooks {}", args.join(" "));
    if !output.status.success() {
        bail!(
            "`{shown}` failed ({}); this hooks binary lacks the subcommand dist needs \
             (`hooks completions SHELL` and the hidden `hooks manpage`):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    if output.stdout.is_empty() {
        bail!("`{shown}` printed nothing");
    }
    Ok(output.stdout)
}

/// Copies the built binary into `dist` with its permissions (it must stay
/// executable); returns its name relative to `dist`.
pub fn copy_binary(binary: &Path, dist: &Path) -> Result<String> {
    let name = binary
        .file_name()
        .with_context(|| format!("{} has no file name", binary.display()))?
        .to_string_lossy()
        .into_owned();
    std::fs::create_dir_all(dist)?;
    std::fs::copy(binary, dist.join(&name))
        .with_context(|| format!("copying {} into {}", binary.display(), dist.display()))?;
    Ok(name)
}

fn write(dist: &Path, relative: &str, contents: &[u8]) -> Result<()> {
    let path = dist.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, contents).with_context(|| format!("writing {}", path.display()))
}

/// `sha256sum` format: `<hex>  <path>` per file, paths relative to `dist`.
pub fn sha256sums(dist: &Path, files: &[String]) -> Result<String> {
    let mut out = String::new();
    for file in files {
        let bytes = std::fs::read(dist.join(file)).with_context(|| format!("reading {file}"))?;
        for byte in Sha256::digest(&bytes) {
            let _ = write!(out, "{byte:02x}");
        }
        let _ = writeln!(out, "  {file}");
    }
    Ok(out)
}
