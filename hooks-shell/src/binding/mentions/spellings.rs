//! The other ways a loader or a compiler reads a word (red team round 8):
//! a dotted module (`pkg.mod` → `pkg/mod`), a Perl module (`Acme::Check` →
//! `Acme/Check`, then `.pm` as loaders add it), an include folder given
//! with its option (`-Ivendor` on a `#!` line or a compiler's command,
//! `-iquote inc`), a word Tcl's brackets end (`[file join $d vendor]`),
//! and each entry of a `:` list (`CDPATH=.:vendor`, `PYTHONPATH=a:lib`: red
//! team round 9, R9-6): every entry is a folder later words are looked up
//! from, as `cd pkg` looks `pkg` up in each entry of `CDPATH`.

/// Compiler and interpreter options whose value, written joined, is a
/// folder searched for what is loaded or included (`perl -Ivendor`, `ruby
/// -Ilib`, `cc -Iinclude`, `gcc -iquoteinc`).
const INCLUDE_OPTIONS: [&str; 4] = ["-iquote", "-isystem", "-idirafter", "-I"];

/// `word` and the other paths it may spell (see the module documentation).
pub(super) fn spellings(word: &str) -> Vec<String> {
    let mut out = vec![word.to_owned()];
    let mut bare = word;
    // Tcl: `[file join $dir vendor]`, `[source x.tcl]`.
    if !bare.contains('[') {
        bare = bare.trim_end_matches(']');
    }
    if !bare.contains(']') {
        bare = bare.trim_start_matches('[');
    }
    if let Some(folder) = INCLUDE_OPTIONS
        .iter()
        .find_map(|option| bare.strip_prefix(option))
        .map(|rest| rest.trim_start_matches('='))
    {
        bare = folder;
    }
    // `ext://tools.boot.H`, `cfg://x` (`dictConfig`: R32-11).
    for scheme in ["ext://", "cfg://"] {
        bare = bare.strip_prefix(scheme).unwrap_or(bare);
    }
    if bare.is_empty() {
        return out;
    }
    push(&mut out, bare);
    if bare.contains(',') && !bare.contains('/') {
        // A field of a list (`tools.boot,1` in a CSV row: R32-11).
        for field in bare.split(',').filter(|field| !field.is_empty()) {
            push(&mut out, field);
            module_path(&mut out, field);
        }
    }
    if bare.contains(':') && !bare.contains("::") {
        // A search list: each entry (an empty one, or `.`, is the folder
        // the word is read from, looked up already); an object path's
        // module (`tools.boot:main`, R30-15).
        for entry in bare.split(':').filter(|entry| *entry != ".") {
            push(&mut out, entry);
            module_path(&mut out, entry);
        }
    }
    if !bare.contains('/') {
        if bare.contains("::") {
            // Perl (`use Acme::Check;`, `require Acme::Check`, `use parent
            // 'Acme::Base'`): `Acme/Check.pm` on `@INC`.
            push(&mut out, &bare.replace("::", "/"));
        } else {
            module_path(&mut out, bare);
        }
    }
    out
}

/// The paths a Python module path may name: `pkg.mod` → `pkg/mod`, and
/// with the object it ends in dropped (`tools.boot.main` → `tools/boot`:
/// `PYTHONBREAKPOINT`, `pkgutil.resolve_name`, R30-15); a relative
/// import's module without its dots (`import_module('.boot', 'tools')`:
/// `boot`, looked up in `tools` once that is named, R30-1).
fn module_path(out: &mut Vec<String>, word: &str) {
    if word.contains('/') {
        return;
    }
    let relative = word.trim_start_matches('.');
    if relative.len() < word.len() {
        if is_module_name(relative) || is_identifier(relative) {
            push(out, relative);
        } else {
            return;
        }
    }
    if !is_module_name(relative) {
        if let Some((first, rest)) = relative.split_once('.')
            && !first.is_empty()
            && !rest.is_empty()
        {
            push(out, &relative.replace('.', "/"));
        }
        return;
    }
    let parts: Vec<&str> = relative.split('.').collect();
    for end in (2..=parts.len()).rev() {
        push(out, &parts[..end].join("/"));
    }
}

/// Whether `word` may name a Python module (`boot`, `_x1`).
fn is_identifier(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether `word` is a dotted module name (`acme.check`).
pub(super) fn is_module_name(word: &str) -> bool {
    word.contains('.')
        && word
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

fn push(out: &mut Vec<String>, spelling: &str) {
    if !spelling.is_empty() && !out.iter().any(|known| known == spelling) {
        out.push(spelling.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::spellings;

    #[test]
    fn a_word_is_spelled_as_loaders_and_compilers_read_it() {
        for (word, spelled) in [
            ("Acme::Check", "Acme/Check"),
            ("Acme::Check::Deep", "Acme/Check/Deep"),
            ("-Ivendor", "vendor"),
            ("-I=vendor", "vendor"),
            ("-iquoteinclude", "include"),
            ("-Iinclude/sub", "include/sub"),
            ("vendor]", "vendor"),
            ("acme.tcl]", "acme.tcl"),
            ("[source", "source"),
            ("pkg.mod", "pkg/mod"),
            ("-IAcme::Deep", "Acme/Deep"),
            (".:vendor", "vendor"),
            (":vendor", "vendor"),
            ("a:vendor", "a"),
            ("a:vendor", "vendor"),
            ("/p/a:/p/vendor/", "/p/vendor/"),
            ("tools.boot:main", "tools/boot"),
            ("tools.boot.main", "tools/boot"),
            ("tools.boot.main", "tools/boot/main"),
            (".boot", "boot"),
            ("ext://tools.boot.H", "tools/boot"),
            ("tools.boot,1", "tools/boot"),
            ("..pkg.boot", "pkg/boot"),
        ] {
            let all = spellings(word);
            assert!(all.contains(&spelled.to_owned()), "{word}: {all:?}");
            assert_eq!(all[0], word);
        }
        assert_eq!(spellings("plain"), ["plain"]);
        assert_eq!(spellings("a/b.c"), ["a/b.c"]);
        assert_eq!(spellings("x[1]"), ["x[1]"]);
    }
}
