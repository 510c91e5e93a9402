//! Perl code that starts a program or loads code another way than a call
//! of `system` / `exec` with written words (red team round 49, H7): a pipe
//! `open` (`open(F, "| sh")`, a mode built when it runs), the block form
//! (`exec { $x } …`), `IPC::Open3` and its kin, `do` / `require` of a
//! computed file, a folder computed when it runs put on `@INC`, and the
//! symbol table (`&{"sys" . "tem"}(…)`, `\&CORE::system`, `->can(…)`).

use std::sync::LazyLock;

use regex::Regex;

use super::code_words::{interpolates, is_string, top_level};

/// Why Perl `code` starts a program or loads code no reading names.
pub(super) fn reaches(code: &str) -> Option<String> {
    symbolic(code)
        .or_else(|| block_form(code))
        .or_else(|| unparenthesized_call(code))
        .or_else(|| super::perl_opens::opens(code))
        .or_else(|| super::perl_opens::ipc_modules(code))
        .or_else(|| loads_computed(code))
}

/// A sub or a symbol reached by a name built when it runs.
fn symbolic(code: &str) -> Option<String> {
    static SYMBOLIC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"&\s*\{|(?:^|[;{(=,!?:]|\breturn\b|\band\b|\bor\b|\bunless\b|\bif\b)\s*&\s*\$|\\\s*&\s*\$|\bgoto\s*&\s*[$\{]",
            r"|\*\s*\{|::\s*\{|%(?:main)?::|\bCORE::GLOBAL::|[\\&*]\s*CORE::",
            r"|->\s*\$\w+|->\s*can\s*\(|\bUNIVERSAL::can\b|\bqualify_to_ref\b|\bsyscall\s*\(",
            r"|[/}]\s*[msixpodualngcr]*e[msixpodualngcr]*e[msixpodualngcr]*\s*[;)]",
        ))
        .expect("valid regex")
    });
    let found = SYMBOLIC.find(code)?;
    Some(format!(
        "reaches code by a name built when it runs (`{}`)",
        found.as_str().trim()
    ))
}

/// `system { PROGRAM } LIST`, `exec { … } …`: refused unless every word is
/// a literal.
fn block_form(code: &str) -> Option<String> {
    static BLOCK: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[^\w$>:{])(system|exec)\s*\{").expect("valid regex"));
    for found in BLOCK.find_iter(code) {
        let inside = &code[found.end()..];
        let end = super::brackets::scan(inside, |_, _, depth| depth < 0)?;
        let rest = statement(&inside[end + 1..]);
        let written = is_string(&inside[..end], "perl")
            && top_level(&rest, ',')
                .iter()
                .all(|word| is_string(word, "perl"));
        if !written {
            return Some(format!(
                "starts a command built when it runs (`{}{}}} {rest}`)",
                found
                    .as_str()
                    .trim_start_matches(|c: char| !c.is_alphabetic()),
                &inside[..end]
            ));
        }
    }
    None
}

/// `system $cmd`, `exec @args`, `system sprintf(…)`, `system qq{sh $x}`:
/// a call without parentheses whose words are not written.
fn unparenthesized_call(code: &str) -> Option<String> {
    static CALL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?:^|[^\w$>:{@%&])(system|exec|readpipe)\s+(qq\s*[^\w\s]|[$@]|[A-Za-z_]\w*\s*\()",
        )
        .expect("valid regex")
    });
    static QX: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\bqx\s*([^\w\s({\[/'])").expect("valid regex"));
    for found in CALL.captures_iter(code) {
        let (Some(whole), Some(start)) = (found.get(0), found.get(2)) else {
            continue;
        };
        let quoted = start.as_str().starts_with("qq");
        let text = statement(&code[start.start()..]);
        if !quoted || interpolates(&text) {
            return Some(format!(
                "starts a command built when it runs (`{}`)",
                code[whole.start()..start.start()].trim().to_owned() + " " + &text
            ));
        }
    }
    // `qx!sh $x!`, `qx<…>`: other delimiters than those read with backquotes.
    let found = QX.captures_iter(code).find(|found| {
        let at = found.get(1).map_or(0, |m| m.end());
        interpolates(&statement(&code[at..]))
    })?;
    Some(format!(
        "starts a command built when it runs (`{}`)",
        found.get(0).map_or("", |m| m.as_str())
    ))
}

/// The text of a statement that `rest` starts: up to its `;` or line's
/// end outside quotes and brackets, without a trailing `or die …`.
pub(super) fn statement(rest: &str) -> String {
    let end = super::brackets::scan(rest, |_, c, depth| depth <= 0 && matches!(c, ';' | '\n'))
        .unwrap_or(rest.len());
    let text = &rest[..end];
    let text = super::brackets::split_outside(text, " or ")[0];
    let text = super::brackets::split_outside(text, "||")[0];
    text.trim().to_owned()
}

/// `do EXPR` / `require EXPR` of a name built when it runs; `@INC` or `use
/// lib` given a folder built when it runs; `Module::Load`'s `load $name`.
fn loads_computed(code: &str) -> Option<String> {
    static DO: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[^\w$>:@%&{-])(do|require)\b\s*").expect("valid regex"));
    for found in DO.captures_iter(code) {
        let (Some(whole), Some(word)) = (found.get(0), found.get(1)) else {
            continue;
        };
        let rest = &code[whole.end()..];
        if !loads_written(word.as_str(), rest) {
            return Some(format!(
                "loads code by a name built when it runs (`{} {}`)",
                word.as_str(),
                statement(rest)
            ));
        }
    }
    static INC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:unshift|push)\s*\(?\s*@INC\s*,|@INC\s*=[^=~]|\$INC\s*\[|\buse\s+lib\b|\blib\s*->\s*import\b|\b(?:Module::Load|Module::Runtime|Class::Load)\b")
            .expect("valid regex")
    });
    for found in INC.find_iter(code) {
        let text = found.as_str();
        if text.starts_with("Module::") || text.starts_with("Class::") {
            if let Some(why) = module_loaded_by_name(code) {
                return Some(why);
            }
            continue;
        }
        let rest = statement(&code[found.end()..]);
        let list = rest.trim_start_matches('(').trim_end_matches(')');
        // `@INC = ("lib", @INC)`: written folders before the path itself.
        let written = !text.contains('[')
            && top_level(list, ',')
                .iter()
                .all(|word| is_place(word) || word.trim() == "@INC");
        if !written {
            return Some(format!(
                "puts a folder built when it runs on its module path (`{text} {rest}`)"
            ));
        }
    }
    None
}

/// Whether `do` or `require` (`word`) before `rest` loads a written
/// name: a block, a literal, a module's bareword, a version.
fn loads_written(word: &str, rest: &str) -> bool {
    static BAREWORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^[A-Za-z_][\w:]*").expect("valid regex"));
    let rest = rest.trim_start();
    let Some(first) = rest.chars().next() else {
        return false;
    };
    match first {
        '{' => word == "do",
        // A hash key (`{do}`, `do => 1`), or a list's word.
        '}' | '=' | ',' => true,
        '\'' | '"' => is_place(&statement(rest)),
        c if c.is_ascii_digit() => true,
        _ => BAREWORD.find(rest).is_some_and(|bare| {
            let after = rest[bare.end()..].trim_start();
            match bare.as_str() {
                "q" | "qw" => is_place(&statement(rest)),
                "qq" => !interpolates(after),
                // `do foo()`: the file a call's value names.
                _ => !(word == "do" && after.starts_with('(')),
            }
        }),
    }
}

/// Whether the Perl `word` names a written file or folder: a literal, a
/// `qw` list, or text whose only values are the script's folder
/// (`$FindBin::Bin`, `dirname(__FILE__)`) and the environment
/// (`$ENV{HOME}`), joined with `.`.
fn is_place(word: &str) -> bool {
    static PLACE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\$\{?FindBin::(?:Real)?Bin\}?|\$ENV\{\s*['\x22]?\w+['\x22]?\s*\}|^\s*(?:File::Basename::)?dirname\s*\(\s*(?:__FILE__|\$0)\s*\)\s*$")
            .expect("valid regex")
    });
    let word = word.trim();
    let quoted = |piece: &str| {
        let piece = piece.trim();
        piece.starts_with("qw") || piece.starts_with("q{") || piece.starts_with("q(")
    };
    let pieces = super::brackets::split_outside(word, ".");
    // Two strings joined name a file no reading holds (`"./to" . "ols/m.pl"`,
    // `q(./to).q(ols/m.pl)`: red team round 51, p02, s26).
    let strings = pieces
        .iter()
        .filter(|piece| quoted(piece) || !PLACE.replace_all(piece, "").is_empty())
        .count();
    !word.is_empty()
        && strings <= 1
        && pieces.iter().all(|piece| {
            let plain = PLACE.replace_all(piece, "");
            quoted(piece) || (plain.is_empty() && !piece.is_empty()) || is_string(&plain, "perl")
        })
}

/// `load $name`, `require_module($x)`, `load_class($x)` of a name built
/// when it runs (`Module::Load`, `Module::Runtime`, `Class::Load`).
fn module_loaded_by_name(code: &str) -> Option<String> {
    static LOAD: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\w$>:])(?:load|autoload|load_remote|require_module|use_module|use_package_optimistically|load_class|try_load_class|load_optional_class|load_first_existing_class)\b\s*")
            .expect("valid regex")
    });
    LOAD.find_iter(code).find_map(|found| {
        let rest = statement(&code[found.end()..]);
        let first = top_level(rest.trim_start_matches('(').trim_end_matches(')'), ',')
            .first()
            .map_or(String::new(), |w| (*w).to_owned());
        let bareword = first
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == ':');
        (!bareword && !is_place(&first)).then(|| {
            format!(
                "loads a module by a name built when it runs (`{}{rest}`)",
                found.as_str().trim()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::inline_code::spawns_computed;

    #[test]
    fn perl_reaching_code_another_way_is_found() {
        for code in [
            "open(F, '| sh') or die; print F `cat tools/x`;",
            "open F, \"| sh\";\nprint F $line;",
            "open(my $f, '|-', 'sh') or die;",
            "open(F, \"sh $x |\");",
            "open(F, $spec) or die;",
            "open my $f, '-|', $cmd or die;",
            "open(my $f, $mode, 'x') or die;",
            "exec { $x } 'a', 'b';",
            "system { 'sh' } 'sh', $f;",
            "system $cmd;",
            "exec @args;",
            "system sprintf('sh tools/%s.sh', $n);",
            "system qq{sh tools/$n.sh};",
            "my $o = qx!sh $f!;",
            "use IPC::Open3;\nmy $pid = open3(my $w, my $r, undef, 'sh', $f);",
            "use IPC::Open3; my $pid = open3(my $in, my $out, undef, \"sh\", \"tools/\" . chr(103) . \".sh\");",
            "use IPC::Open2;\nopen2(my $r, my $w, @cmd);",
            "use IPC::Cmd qw(run);\nrun(command => $cmd);",
            "use IPC::Run qw(run);\nrun \\@cmd, \\$in, \\$out;",
            "use IPC::System::Simple qw(capture);\nmy $o = capture($cmd);",
            "use IPC::Open2;\nopen2(my $r, my $w, 'sh');",
            "do $f;",
            "do \"tools/$n.pl\";",
            "do \"./to\" . \"ols/m.pl\";",
            "do q(./to).q(ols/m.pl);",
            "require $module;",
            "do sprintf('tools/%s.pl', 'm');",
            "unshift @INC, $dir; require Helper;",
            "use lib $dir;",
            "push @INC, sub { };",
            "use Module::Load;\nload $name;",
            "&{\"sys\" . \"tem\"}('sh', $f);",
            "my $s = \"sys\" . \"tem\"; &$s('sh', $f);",
            "*{\"main::run\"} = \\&CORE::system; run('sh', $f);",
            "my $f = main->can('system');",
            "goto &$ref;",
            "*CORE::GLOBAL::exit = sub { };",
            "$main::{\"x\"}->('sh');",
            "my $m = 'run'; __PACKAGE__->$m($f);",
            "my $c = 'x'; $c =~ s/x/$code/ee;",
        ] {
            assert!(spawns_computed("perl", code).is_some(), "{code}");
        }
    }

    #[test]
    fn ordinary_perl_is_read_as_before() {
        for code in [
            "use strict;\nuse warnings;\nuse JSON::PP;\nmy $d = decode_json(do { local $/; <STDIN> });\nprint $d->{tool_name}, \"\\n\";",
            "open(my $f, '<', $p) or die \"no $p: $!\";\nwhile (my $l = <$f>) { print $l }\nclose $f;",
            "open my $f, '<', $p or die;",
            "open(my $f, '-|', 'git', 'diff') or die;\nprint <$f>;",
            "open(FH, \"<$file\") or die;",
            "open(LOG, '>>', \"$ENV{HOME}/hook.log\");",
            "open(FH, 'git log |');",
            "system('make', '-s');",
            "system { 'git' } 'git', 'diff';",
            "use File::Copy;\ncopy('a', 'b');",
            "use FindBin;\nuse lib \"$FindBin::Bin/lib\";\nuse Helper;",
            "use lib 'lib';\nrequire Foo::Bar;\nrequire 5.010;",
            "do 'tools/config.pl';",
            "my $r = do { 1 };",
            "$dbh->do('DELETE FROM x');",
            "my %h = (do => 1);\nprint $h{do};",
            "if ($a && $b) { print 1 }",
            "my $x = $a & $b;",
            "my @l = map { $_ * 2 } @n;",
            "print \"Please do not edit\\n\";",
            "use FindBin;\nuse lib \"$FindBin::Bin/lib\";\nuse H;\nsub main { die \"\\$0 is $0\\n\" unless $0 eq 'check.pl'; open(my $f, '>', 'ran'); }\nmain() unless caller;\n__END__\n=pod\n",
            "use File::Basename;\nuse lib dirname(__FILE__) . '/lib';\n",
            "use IPC::Cmd qw(can_run run);\nmy $ok = run(command => ['git', 'diff'], verbose => 0);\n",
            "use IPC::Open3;\nmy $pid = open3(my $in, my $out, undef, 'git', 'log');\n",
            "open(my $fh, '<', $file) or die \"Could not open file $file, $!\";",
        ] {
            assert_eq!(spawns_computed("perl", code), None, "{code}");
        }
    }
}
