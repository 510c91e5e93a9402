//! Python code that loads or runs code no reading of its words names (red
//! team round 49, H6): a file or module loaded by a name built when it
//! runs (`runpy.run_path('tools/' + chr(109) + '.py')`, `__import__(…)`,
//! `spec_from_file_location(name, …)`: [`super::spelled`]); data loaders
//! that run what the data says (`pickle.load`, `yaml.unsafe_load`,
//! `torch.load` without `weights_only=True`...); the interactive
//! interpreter (`code.InteractiveInterpreter().runsource(…)`); the
//! builtins reached by name (`getattr(builtins, 'ex' + 'ec')`); and a
//! function that starts programs or loads code taken as a value
//! (`Process(target=os.system, …)`, `map(eval, …)`).

use std::sync::LazyLock;

use regex::Regex;

use super::spelled::{Syntax, is_spelled};

/// Why Python `code` loads or runs code no reading names.
pub(super) fn loads_computed(code: &str) -> Option<String> {
    runs_data(code)
        .or_else(|| attribute_by_name(code))
        .or_else(|| safe_loader_missing(code))
        .or_else(|| loaded_by_computed_name(code))
        .or_else(|| taken_as_value(code))
}

/// Loaders of data that runs code, the interactive interpreter, and the
/// builtins reached by name.
fn runs_data(code: &str) -> Option<String> {
    static RUNS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"\b(?:pickle|cPickle|_pickle|dill|cloudpickle|joblib|marshal|jsonpickle)\s*\.\s*(?:loads?|Unpickler|decode)\s*\(",
            r"|\bshelve\s*\.\s*(?:open|Shelf|DbfilenameShelf|BsdDbShelf)\s*\(",
            r"|\b(?:Unpickler|read_pickle|unsafe_load(?:_all)?|UnsafeLoader)\b",
            r"|\bfrom\s+(?:pickle|cPickle|_pickle|dill|cloudpickle|joblib|marshal|jsonpickle|shelve)\s+import\b",
            r"|\bimport\s+(?:pickle|cPickle|_pickle|dill|cloudpickle|joblib|marshal|jsonpickle|shelve)\s+as\b",
            r"|\ballow_pickle\s*=\s*True\b",
            r"|\bcode\s*\.\s*(?:interact|compile_command)\b|\bInteractive(?:Interpreter|Console)\b|\.\s*(?:runsource|runcode)\s*\(",
            r"|\b(?:FunctionType|CodeType|LambdaType)\s*\(|\brunpy\s*\.\s*_\w+|\bsys\s*\.\s*(?:meta_path|path_hooks|path_importer_cache)\b",
            r"|\btimeit\s*\.\s*(?:timeit|repeat|Timer)\s*\(|\b(?:cProfile|profile|pdb|bdb)\s*\.\s*(?:run|runctx|runeval|runcall)\s*\(|\.\s*dlopen\s*\(",
            r"|\.\s*__dict__\b|\bvars\s*\(\s*(?:__import__|builtins|importlib|sys\s*\.\s*modules)|[)\]]\s*\.\s*(?:exec|eval|compile|__import__)\s*\(\s*[^)'\x22\s]",
            r"|\b__builtins__\b|\bbuiltins\s*\.\s*(?:__dict__|exec|eval|compile|__import__)\b|\bvars\s*\(\s*builtins\b|\bfrom\s+builtins\s+import\b",
            r"|\b(?:get|set)attr\s*\(\s*(?:builtins|importlib|runpy|code|pickle|marshal|shelve|dill|yaml|multiprocessing|site|types|imp|pkgutil|zipimport)\b",
        ))
        .expect("valid regex")
    });
    let found = RUNS.find(code)?;
    Some(format!(
        "loads code no reading names (`{}`)",
        found.as_str().trim()
    ))
}

/// `getattr(x, name)` of a name not written, or of a function that starts
/// programs or loads code (`getattr(m, 'system')` of `m =
/// __import__('os')`): what it calls no reading shows.
fn attribute_by_name(code: &str) -> Option<String> {
    static GETATTR: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\bgetattr\s*\(").expect("valid regex"));
    static RUNS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:exec\w*|eval|compile|system|popen\w*|run\w*|call|check_\w+|Popen|get\w*output|spawn\w*|posix_spawnp?|import_module|__import__|loads?|__builtins__|__dict__|__globals__|__code__)$")
            .expect("valid regex")
    });
    GETATTR.find_iter(code).find_map(|found| {
        let arguments = super::python_values::call_arguments(&code[found.end() - 1..]);
        let parts = super::inline_code::top_level(&arguments, ',');
        let name = parts.get(1).copied().unwrap_or("");
        let text = super::code_words::is_string(name, "python3")
            .then(|| super::shell_strings::literal_text(name, "python3").flatten())
            .flatten();
        let written = text.is_some_and(|text| !RUNS.is_match(&text));
        (!written).then(|| format!("reaches a function by its name (`getattr({arguments})`)"))
    })
}

/// `yaml.load(…)` without a safe loader, `torch.load(…)` without
/// `weights_only=True`: data that may run code.
fn safe_loader_missing(code: &str) -> Option<String> {
    static LOADS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(yaml|torch)\s*\.\s*(load|load_all)\s*\(").expect("valid regex")
    });
    static SAFE_YAML: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|,)\s*(?:Loader\s*=\s*)?(?:yaml\s*\.\s*)?C?(?:Safe|Base)Loader\s*(?:,|$)")
            .expect("valid regex")
    });
    static WEIGHTS_ONLY: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\bweights_only\s*=\s*True\b").expect("valid regex"));
    // `from yaml import load`: its calls by the bare name.
    static FROM_YAML: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^\s*from\s+yaml\s+import\b[^\n]*\bload(?:_all)?\b").expect("valid regex")
    });
    static BARE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[^.\w])(load(?:_all)?)\s*\(").expect("valid regex"));
    let mut calls: Vec<(usize, &str)> = LOADS
        .captures_iter(code)
        .filter_map(|found| Some((found.get(2)?.end(), found.get(1)?.as_str())))
        .collect();
    if FROM_YAML.is_match(code) {
        calls.extend(
            BARE.captures_iter(code)
                .filter_map(|found| Some((found.get(1)?.end(), "yaml"))),
        );
    }
    calls.into_iter().find_map(|(end, module)| {
        let arguments = super::python_values::call_arguments(code[end..].trim_start());
        let safe = match module {
            "torch" => WEIGHTS_ONLY.is_match(&arguments),
            _ => SAFE_YAML.is_match(&arguments),
        };
        (!safe).then(|| format!("loads data that may run code (`{module}.load({arguments})`)"))
    })
}

/// The loaders of a file or module by name, called by any receiver
/// (`runpy.run_path`, `from runpy import run_path`), each argument of
/// which names code (a module, a path, `fromlist=`, a package).
const NAMED_LOADERS: [&str; 18] = [
    "run_path",
    "run_module",
    "import_module",
    "__import__",
    "spec_from_file_location",
    "load_source",
    "load_compiled",
    "SourceFileLoader",
    "SourcelessFileLoader",
    "ExtensionFileLoader",
    "zipimporter",
    "resolve_name",
    "set_executable",
    "set_forkserver_preload",
    "find_loader",
    "find_spec",
    "find_module",
    "load_module",
];

/// A call of a [`NAMED_LOADERS`] loader with an argument no reading spells.
fn loaded_by_computed_name(code: &str) -> Option<String> {
    static CALLED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(r"(?:^|[^\w])({})\s*\(", NAMED_LOADERS.join("|"))).expect("valid regex")
    });
    static KEYWORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*[A-Za-z_]\w*\s*=([^=].*)$").expect("valid regex"));
    let aliases = loader_aliases(code);
    let by_alias = match aliases.is_empty() {
        true => None,
        false => Regex::new(&format!(r"(?:^|[^\w.])({})\s*\(", aliases.join("|"))).ok(),
    };
    let calls = CALLED
        .captures_iter(code)
        .chain(by_alias.iter().flat_map(|alias| alias.captures_iter(code)));
    for found in calls {
        let (Some(name), Some(whole)) = (found.get(1), found.get(0)) else {
            continue;
        };
        // `def run_path(…)` defines; `from runpy import (run_path)` imports.
        let before = code[..name.start()].trim_end();
        if before.ends_with("def") || before.ends_with("import") {
            continue;
        }
        let arguments = super::python_values::call_arguments(&code[whole.end() - 1..]);
        for argument in super::inline_code::top_level(&arguments, ',') {
            let value = KEYWORD
                .captures(argument)
                .and_then(|keyword| keyword.get(1))
                .map_or(argument, |value| value.as_str());
            if !is_spelled(value, code, Syntax::Python) {
                return Some(format!(
                    "loads code by a name built when it runs (`{}({arguments})`)",
                    name.as_str()
                ));
            }
        }
    }
    None
}

/// The names `code` gives a [`NAMED_LOADERS`] loader: `from importlib
/// import import_module as im`, `f = importlib.import_module`.
fn loader_aliases(code: &str) -> Vec<String> {
    static ALIASED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"(?m)\b(?:{0})\s+as\s+([A-Za-z_]\w*)|^[ \t]*([A-Za-z_]\w*)\s*=\s*[\w.]*\b(?:{0})[ \t]*$",
            NAMED_LOADERS.join("|")
        ))
        .expect("valid regex")
    });
    ALIASED
        .captures_iter(code)
        .filter_map(|found| found.get(1).or(found.get(2)))
        .map(|name| regex::escape(name.as_str()))
        .collect()
}

/// A function that starts a program or loads code taken as a value, not
/// called (`Process(target=os.system, …)`, `pool.map(eval, xs)`,
/// `target=runpy.run_path`): what it is given no call shows. `f =
/// subprocess.run` is read as an alias ([`super::python_values::aliases`]).
fn taken_as_value(code: &str) -> Option<String> {
    static QUALIFIED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b(?:os|subprocess|pty|posix|runpy|importlib|asyncio|imp|pkgutil)\s*\.\s*(?:system|popen|exec[lv]p?e?|spawn[lv]?p?e?|posix_spawnp?|run|call|check_call|check_output|Popen|getoutput|getstatusoutput|run_path|run_module|import_module|load_source|resolve_name|create_subprocess_(?:exec|shell))\b")
            .expect("valid regex")
    });
    // `il.import_module` of `import importlib as il`, a loader of any module.
    static LOADER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\.\s*(?:run_path|run_module|import_module|spec_from_file_location|load_source|__import__)\b")
            .expect("valid regex")
    });
    static BARE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:[=(,\[:{]|\breturn|\bor|\band|\belse)\s*(exec|eval|compile|__import__|run_path|run_module|import_module|spec_from_file_location)\s*(?:[)\],}:;\n]|$)")
            .expect("valid regex")
    });
    static ALIAS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*[A-Za-z_]\w*\s*=\s*[\w.]+\s*$").expect("valid regex"));
    let line_of = |at: usize| {
        let start = code[..at].rfind('\n').map_or(0, |n| n + 1);
        let end = code[at..].find('\n').map_or(code.len(), |n| at + n);
        &code[start..end]
    };
    let qualified = QUALIFIED
        .find_iter(code)
        .chain(LOADER.find_iter(code))
        .find(|found| {
            let called = code[found.end()..].trim_start().starts_with('(');
            !called && !ALIAS.is_match(line_of(found.start()))
        });
    let bare = BARE
        .captures_iter(code)
        .filter_map(|c| c.get(1))
        .find(|name| {
            let line = line_of(name.start()).trim_start();
            !(line.starts_with("from ") || line.starts_with("import "))
        });
    match qualified.or(bare) {
        Some(found) => Some(format!("takes `{}` as a value, not a call", found.as_str())),
        None => renamed_taken_as_value(code, &line_of),
    }
}

/// The modules whose functions start programs or load code.
const STARTING_MODULES: &str = "os|subprocess|pty|posix|runpy|importlib|asyncio|imp|pkgutil";

/// Their functions that do.
const STARTING_FUNCTIONS: &str = "system|popen|exec[lv]p?e?|spawn[lv]?p?e?|posix_spawnp?|run|call|\
     check_call|check_output|Popen|getoutput|getstatusoutput|run_path|run_module|import_module|\
     load_source|resolve_name|create_subprocess_(?:exec|shell)";

/// [`taken_as_value`] through another name (`import subprocess as sp;
/// partial(sp.run, …)`, `from subprocess import run; partial(run, …)`:
/// red team round 59, F2-27/47/50).
fn renamed_taken_as_value<'a>(code: &'a str, line_of: &dyn Fn(usize) -> &'a str) -> Option<String> {
    static MODULE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"\bimport\s+(?:{STARTING_MODULES})\s+as\s+([A-Za-z_]\w*)"
        ))
        .expect("valid regex")
    });
    static FROM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(
            r"(?m)^\s*from\s+(?:{STARTING_MODULES})\s+import\s+\(?([^)\n]+)"
        ))
        .expect("valid regex")
    });
    static STARTS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&format!("^(?:{STARTING_FUNCTIONS})$")).expect("valid regex"));
    let modules: Vec<String> = MODULE
        .captures_iter(code)
        .filter_map(|c| c.get(1))
        .map(|name| {
            let module = regex::escape(name.as_str());
            format!(r"\b{module}\s*\.\s*(?:{STARTING_FUNCTIONS})\b")
        })
        .collect();
    let functions: Vec<String> = FROM
        .captures_iter(code)
        .filter_map(|c| c.get(1))
        .flat_map(|names| names.as_str().split(','))
        .filter_map(|name| {
            let mut words = name.split_whitespace();
            let original = words.next()?;
            let bound = match (words.next(), words.next()) {
                (Some("as"), Some(alias)) => alias,
                _ => original,
            };
            STARTS
                .is_match(original)
                .then(|| format!(r"(?:^|[^.\w]){}\b", regex::escape(bound)))
        })
        .collect();
    let names: Vec<String> = modules.into_iter().chain(functions).collect();
    if names.is_empty() {
        return None;
    }
    let pattern = Regex::new(&names.join("|")).ok()?;
    let found = pattern.find_iter(code).find(|found| {
        let line = line_of(found.start()).trim_start();
        let called = code[found.end()..].trim_start().starts_with('(');
        // `r = sp.run` is an alias ([`super::python_values::aliases`]).
        let alias = Regex::new(r"^\s*[A-Za-z_]\w*\s*=\s*[\w.]+\s*$")
            .is_ok_and(|alias| alias.is_match(line));
        !called && !alias && !line.starts_with("from ") && !line.starts_with("import ")
    })?;
    let taken = found
        .as_str()
        .trim_start_matches(|c: char| !c.is_alphanumeric() && c != '_');
    Some(format!("takes `{taken}` as a value, not a call"))
}

#[cfg(test)]
mod tests {
    use super::super::inline_code::spawns_computed;

    #[test]
    fn code_loaded_by_a_computed_name_or_from_data_is_found() {
        for code in [
            "import runpy\nrunpy.run_path('tools/' + chr(109) + '.py')\n",
            "from runpy import run_path\nrun_path('tools/%s.py' % 'm')\n",
            "import runpy\nrunpy.run_module(chr(109))\n",
            "import importlib.util as u\ns = u.spec_from_file_location('m', 'tools/' + chr(109) + '.py')\nm = u.module_from_spec(s)\ns.loader.exec_module(m)\n",
            "__import__(chr(109))\n",
            "__import__('tools', fromlist=[chr(109)])\n",
            "import importlib\nimportlib.import_module(chr(109))\n",
            "import importlib\nimportlib.import_module('sub' + 'process')\n",
            "import importlib\nname = ''.join(['t', 'ools.m'])\nimportlib.import_module(name)\n",
            "import builtins\ngetattr(builtins, 'ex' + 'ec')(open('tools/m.py').read())\n",
            "__builtins__.__dict__['ex' + 'ec'](s)\n",
            "import builtins\nbuiltins.exec(open(n).read())\n",
            "import code\ncode.InteractiveInterpreter().runsource(open('tools/' + chr(109) + '.py').read())\n",
            "import code\nc = code.InteractiveConsole()\nc.push(s)\n",
            "import pickle\npickle.load(open('data.pkl', 'rb'))\n",
            "import pickle\npickle.loads(b)\n",
            "import cPickle as pickle\n",
            "from pickle import loads\nloads(b)\n",
            "import shelve\nshelve.open('db')['k']\n",
            "import marshal\nexec(marshal.loads(b))\n",
            "import marshal, types\ntypes.FunctionType(marshal.load(f), {})()\n",
            "import dill\ndill.load(f)\n",
            "import joblib\njoblib.load('m.joblib')\n",
            "import yaml\nyaml.unsafe_load(open('x.yml'))\n",
            "import yaml\nyaml.load(open('x.yml'))\n",
            "import yaml\nyaml.load(open('x.yml'), Loader=yaml.Loader)\n",
            "from yaml import load\nload(open('x.yml'))\n",
            "import torch\ntorch.load('m.pt')\n",
            "import jsonpickle\njsonpickle.decode(s)\n",
            "import numpy as np\nnp.load('a.npy', allow_pickle=True)\n",
            "import site\nsite.addsitedir('tools/' + chr(109))\n",
            "import multiprocessing as mp, runpy\nmp.Process(target=runpy.run_path, args=(p,)).start()\n",
            "import multiprocessing as mp, os\nmp.Pool().map(os.system, cmds)\n",
            "import multiprocessing as mp\nmp.set_executable(x)\n",
            "import multiprocessing as mp\nmp.set_forkserver_preload([chr(109)])\n",
            "list(map(eval, lines))\n",
            "from importlib import import_module as im\nim(chr(109))\n",
            "import importlib as il\nf = il.import_module\nf(chr(109))\n",
            "import importlib as il\nlist(map(il.import_module, names))\n",
            "f = eval\nf(s)\n",
            "g = getattr(__import__('builtins'), 'ex' 'ec')\nvars(__import__('builtins'))['ex' + 'ec'](s)\n",
            "__import__('builtins').exec(s)\n",
            "m = __import__('os')\ngetattr(m, 'sys' 'tem')('sh ' + p)\n",
            "m = __import__('os')\ngetattr(m, 'system')(c)\n",
            "import sys\nsys.modules['builtins'].eval(s)\n",
            "from types import FunctionType\nFunctionType(c, {})()\n",
            "import sys\nsys.meta_path.insert(0, Finder())\n",
            "import timeit\ntimeit.timeit(open(n).read(), number=1)\n",
            "import importlib.util\ns = importlib.util.find_spec(chr(109))\n",
        ] {
            assert!(spawns_computed("python3", code).is_some(), "{code}");
        }
    }

    #[test]
    fn ordinary_loading_is_read_as_before() {
        for code in [
            "import json, sys\nd = json.load(sys.stdin)\nprint(d['tool_name'])\n",
            "import yaml\nc = yaml.safe_load(open('config.yml'))\n",
            "import yaml\nc = yaml.load(open('config.yml'), Loader=yaml.SafeLoader)\n",
            "from yaml import load, CSafeLoader\nc = load(open('c.yml'), Loader=CSafeLoader)\n",
            "import torch\nm = torch.load('m.pt', weights_only=True)\n",
            "import numpy as np\na = np.load('a.npy')\n",
            "import pickle\nopen('cache.pkl', 'wb').write(pickle.dumps(x))\n",
            "import runpy\nrunpy.run_path('tools/check.py', run_name='__main__')\n",
            "import runpy, os\nHERE = os.path.dirname(os.path.abspath(__file__))\nrunpy.run_path(os.path.join(HERE, 'check.py'))\n",
            "import runpy, glob\nrunpy.run_path(glob.glob('**/helper2.py', recursive=True)[0])\n",
            "import shutil, runpy\nX = '/tmp/d'\nshutil.copytree('.', X)\nrunpy.run_path(f'{X}/check.py')\n",
            "import importlib\nimportlib.import_module('.boot', 'tools')\n",
            "import importlib\nm = importlib.import_module('tools.boot.main'.rsplit('.', 1)[0])\n",
            "__import__('tools', fromlist=['boot'])\n",
            "import csv, importlib\nfor row in csv.reader(open('mods.csv')):\n    importlib.import_module(row[0])\n",
            "import importlib\nfor name in ('lint', 'fmt'):\n    importlib.import_module(f'plugins.{name}')\n",
            "import importlib.util, os\nspec = importlib.util.spec_from_file_location('helper', os.path.join(os.path.dirname(__file__), 'helper.py'))\n",
            "import pkgutil\npkgutil.resolve_name(open('ep.txt').read().strip())\n",
            "import re\npattern = re.compile(r'x+')\nprint(eval('1 + 1'))\n",
            "import multiprocessing as mp\ndef work(x):\n    return x\nmp.Pool().map(work, [1, 2])\n",
            "import subprocess\nrun = subprocess.run\nrun(['git', 'diff'])\n",
            "import ast\nv = ast.literal_eval(s)\n",
            "import importlib.util, sys\nif importlib.util.find_spec('ruff') is None:\n    sys.exit(0)\n",
            "import sys\nfrom pathlib import Path\nsys.path.insert(0, str(Path(__file__).parent))\nfrom helpers import check\n",
            "import argparse\nargs = vars(parser.parse_args())\nprint(getattr(ns, 'verbose', False))\n",
        ] {
            assert_eq!(spawns_computed("python3", code), None, "{code}");
        }
    }
}
