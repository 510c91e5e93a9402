//! Node code that runs or loads code no reading of its words names,
//! whether or not it loads `child_process` (red team round 49, H8): text
//! run as code (`eval(s)`, `new Function(s)`, the `vm` module, a worker
//! given code), Node's module loader reached inside (`Module._load`,
//! `module.paths.unshift(…)`), the global object indexed
//! (`globalThis['req' + 'uire']`), and a module loaded by a name no
//! reading spells (`require('./tools/' + x)`, `import(x)`,
//! `createRequire(x)`, `new Worker(x)`: [`super::spelled`]). A written
//! name (`require('./tools/m')`, `require(path.join(__dirname, 'lib'))`)
//! is bound by the reading of words, as before.

use std::sync::LazyLock;

use regex::Regex;

use super::spelled::{Syntax, is_spelled};

/// Why Node `code` runs or loads code no reading names.
pub(super) fn runs_code(code: &str) -> Option<String> {
    runs_text(code)
        .or_else(|| loaded_by_computed_name(code))
        .or_else(|| taken_as_value(code))
}

/// Text run as code, and the module loader or global object reached
/// inside.
fn runs_text(code: &str) -> Option<String> {
    static RUNS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?:^|[^\w$.])eval\s*\(|\bnew\s+Function\b|(?:^|[^\w$.])Function\s*\(|\b(?:Async|Generator|AsyncGenerator)Function\b",
            r"|\.\s*constructor\s*\(|\bconstructor\s*\.\s*(?:constructor|call|apply|bind)\b|\[\s*['\x22`]constructor['\x22`]\s*\]|\bFunction\s*\.|\b(?:eval|require)\s*\.\s*(?:call|apply|bind)\b",
            r"|['\x22`](?:node:)?(?:inspector|repl)(?:/promises)?['\x22`]|\bregisterHooks\s*\(|\bModule\s*\.\s*register\s*\(|\{[^}]*\bregister\b[^}]*\}\s*(?:=\s*require\s*\(\s*|from\s*)['\x22](?:node:)?module['\x22]",
            r"|\brequire\s*\(\s*['\x22`](?:node:)?vm['\x22`]\s*\)|\bfrom\s*['\x22](?:node:)?vm['\x22]|\bimport\s*\(\s*['\x22`](?:node:)?vm['\x22`]\s*\)",
            r"|\bvm\s*\.\s*(?:runIn\w*|compileFunction|Script|SourceTextModule|SyntheticModule)\b",
            r"|\bModule\s*\.\s*_\w+|\.\s*_(?:load|compile|resolveFilename|initPaths|extensions|findPath|nodeModulePaths|resolveLookupPaths|pathCache)\b",
            r"|\brequire\s*\.\s*extensions\b|\bmodule\s*\.\s*(?:constructor|parent)\b|\b(?:module|main|mainModule)\s*\.\s*paths\s*(?:\.\s*(?:unshift|push|splice)\b|=[^=]|\[)",
            r"|\bprocess\s*\.\s*(?:binding|_linkedBinding|dlopen|mainModule)\b",
            r"|\bprocess\s*\.\s*env\s*(?:\.\s*NODE_(?:PATH|OPTIONS)|\[\s*['\x22`]NODE_(?:PATH|OPTIONS)['\x22`]\s*\])\s*=[^=]",
            r"|\b(?:globalThis|global|window)\s*(?:\?\.\s*)?\[|\b(?:globalThis|global|window)\s*\.\s*(?:eval|Function|require)\b|[(,=]\s*(?:globalThis|global|window)\s*(?:[,);]|$)",
            r"|\bReflect\s*\.\s*(?:apply|construct)\s*\(\s*(?:eval|Function|require|Worker)\b",
            r"|\bnew\s+(?:Shared)?Worker\s*\([^;]*?\beval\s*:\s*true",
        ))
        .expect("valid regex")
    });
    let found = RUNS.find(code)?;
    Some(format!(
        "runs code built when it runs (`{}`)",
        found.as_str().trim()
    ))
}

/// `require(…)`, `module.require(…)`, `import(…)`, `createRequire(…)`,
/// `new Worker(…)` of a name no reading spells.
fn loaded_by_computed_name(code: &str) -> Option<String> {
    static LOADS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\w$])(require|import|createRequire|Worker)\s*\(").expect("valid regex")
    });
    for found in LOADS.captures_iter(code) {
        let (Some(name), Some(whole)) = (found.get(1), found.get(0)) else {
            continue;
        };
        // `function require(…)` defines, a method (`x.import(`) is another.
        let before = code[..name.start()].trim_end();
        if before.ends_with("function") {
            continue;
        }
        let inside = &code[whole.end()..];
        let end = super::brackets::scan(inside, |_, _, depth| depth < 0).unwrap_or(inside.len());
        let arguments = super::inline_code::top_level(&inside[..end], ',');
        let first = arguments.first().copied().unwrap_or("");
        if !is_spelled(first, code, Syntax::Node) && !listed_entry(first, code) {
            return Some(format!(
                "loads code by a name built when it runs (`{}({first})`)",
                name.as_str()
            ));
        }
    }
    None
}

/// Whether `expression` is a folder written out joined to one of its own
/// entries (`'./plugins/' + f` in `for (const f of
/// fs.readdirSync('plugins'))`): the folder's listing is bound, so what it
/// loads is (R25b).
fn listed_entry(expression: &str, code: &str) -> bool {
    static JOINED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"^\s*['"](?:\./)?([\w-][\w.-]*(?:/[\w.-]+)*)/['"]\s*\+\s*([A-Za-z_$][\w$]*)\s*$"#,
        )
        .expect("valid regex")
    });
    let Some(joined) = JOINED.captures(expression) else {
        return false;
    };
    let (folder, name) = (&joined[1], regex::escape(&joined[2]));
    if folder.split('/').any(|part| part == "..") {
        return false;
    }
    let folder = regex::escape(folder);
    let listing = format!(r#"readdirSync\(\s*['"](?:\./)?{folder}/?['"]\s*\)"#);
    let looped = Regex::new(&format!(
        r"\bfor\s*\(\s*(?:const|let|var)\s+{name}\s+of\s+(?:\w+\.)?{listing}|(?:\w+\.)?{listing}\s*\.\s*forEach\s*\(\s*\(?\s*{name}\s*\)?\s*=>"
    ));
    looped.is_ok_and(|looped| looped.is_match(code))
}

/// `eval`, `Function` or `require` taken as a value, not called (`(0,
/// eval)(s)`, `const r = require`): what it is given no call shows.
fn taken_as_value(code: &str) -> Option<String> {
    static VALUE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:(?:^|[=(,\[:?!&|>{])\s*|\breturn\s+)(eval|require)\s*(?:[)\],;}:?]|\|\||&&|$)|(?:[=(,\[]\s*|\breturn\s+)(Function)\s*(?:[)\],;]|$)")
            .expect("valid regex")
    });
    let found = VALUE.captures_iter(code).next()?;
    let name = found.get(1).or(found.get(2))?;
    Some(format!("takes `{}` as a value, not a call", name.as_str()))
}

#[cfg(test)]
mod tests {
    use super::super::inline_code::spawns_computed;

    #[test]
    fn node_running_or_loading_code_by_a_computed_name_is_found() {
        for code in [
            "eval(s)",
            "const x = JSON.parse(d); eval(x.code)",
            "new Function(s)()",
            "(() => {}).constructor('return process')()",
            "const vm = require('vm'); vm.runInThisContext(s)",
            "import vm from 'node:vm';",
            "const { Worker } = require('worker_threads'); new Worker(s, { eval: true })",
            "const { Worker } = require('worker_threads'); new Worker('./tools/' + n)",
            "require('module')._load(n)",
            "const Module = require('module'); Module._load(n, null, true)",
            "module.paths.unshift(d); require('helper')",
            "const r = require('module').createRequire(d); r('./m')",
            "require('./tools/' + n)",
            "require(`./tools/${n}`)",
            "const n = String.fromCharCode(109); require('./tools/' + n)",
            "import('./tools/' + n).then(m => m.run())",
            "globalThis['req' + 'uire']('./tools/m')",
            "global['ev' + 'al'](s)",
            "const r = require; r(x)",
            "(0, eval)(s)",
            "module.require(n)",
            "process.env.NODE_OPTIONS = '--require ' + n",
            "function load(p) { return require(p) }\nload('./m')",
            "Function.prototype.constructor.call(null, s)()",
            "require.call(null, './tools/' + n)",
            "const g = globalThis;\ng[k](s)",
            "const { Session } = require('node:inspector');",
            "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);",
            "const { Worker } = require('worker_threads');\nReflect.construct(Worker, [f]);",
        ] {
            assert!(spawns_computed("node", code).is_some(), "{code}");
        }
    }

    #[test]
    fn node_loading_written_names_is_read_as_before() {
        for code in [
            "const fs = require('fs');\nconst d = JSON.parse(fs.readFileSync(0, 'utf8'));\nconsole.log(d.tool_name);",
            "const x = require('./lib/x');\nx.check(process.argv[2]);",
            "const path = require('path');\nconst h = require(path.join(__dirname, 'lib', 'helper'));",
            "const h = require(__dirname + '/lib/helper');",
            "import fs from 'node:fs';\nimport { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\nconst cfg = require('./config.json');",
            "const { Worker } = require('worker_threads');\nnew Worker(new URL('./worker.js', import.meta.url));",
            "const m = await import('./lib/m.mjs');",
            "if (require.main === module) { main(); }",
            "const r = require.resolve('prettier');",
            "page.$eval('#x', el => el.textContent);",
            "process.stdin.on('data', c => { buf += c; });",
            "// eval and require are not used here\nconsole.log('ok');",
            "function run(cb: Function) { return cb() }",
            "import { readFileSync } from 'node:fs';\nimport path from 'node:path';\nconst d = JSON.parse(readFileSync(0, 'utf8'));\nconsole.log(path.resolve(d.tool_input.file_path));",
            "const cp = require('child_process');\ncp.execFileSync('npx', ['prettier', '--write', f], { stdio: 'inherit' });",
            "const fs = require('fs');\nfor (const f of fs.readdirSync('plugins')) require('./plugins/' + f);",
        ] {
            assert_eq!(spawns_computed("node", code), None, "{code}");
        }
    }
}
