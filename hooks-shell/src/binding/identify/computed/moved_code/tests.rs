//! Tests of the reading of code moving where it runs.
use super::moves_to_computed;

#[test]
fn code_moving_to_a_folder_named_when_it_runs_is_found() {
    for (program, code) in [
        ("python3", "import os\nos.chdir('to' + 'ols')\n"),
        (
            "python3",
            "subprocess.run(['sh', 'g.sh'], cwd='to' + 'ols')\n",
        ),
        (
            "python3",
            "env = dict(os.environ, PYTHONPATH='to' + 'ols')\n",
        ),
        ("python3", "os.environ['PYTHONPATH'] = 'to' + 'ols'\n"),
        (
            "python3",
            "d = {'x': 'to' + 'ols'}\nsubprocess.run(['sh', 'g.sh'], cwd=d['x'])\n",
        ),
        (
            "python3",
            "subprocess.run(['git', 'status'], env=dict(os.environ, GIT_DIR='s' + 'ub/.git'))\n",
        ),
        ("node", "process.chdir('to' + 'ols');\n"),
        ("node", "spawnSync('sh', ['g.sh'], {cwd: 'to' + 'ols'});\n"),
        (
            "node",
            "spawnSync('node', ['-e', 'x'], {env: {...process.env, NODE_PATH: 'to' + 'ols'}});\n",
        ),
        ("perl", "chdir(\"to\" . \"ols\");\n"),
        ("perl", "$ENV{PERL5LIB} = \"to\" . \"ols\";\n"),
        // Round 53: a definitions program in the folder of a path the
        // tool call names.
        // Round 55: spellings of the move, a second program, a loader.
        (
            "python3",
            "data = json.load(sys.stdin)\nd = os.path.dirname(data['tool_input']['file_path'])\nos.fchdir(os.open(d, os.O_RDONLY))\nsubprocess.run(['make'])\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\nd = os.path.dirname(data['tool_input']['file_path'])\nkw = {\"cwd\": d}\nsubprocess.run(['make'], **kw)\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\nd = os.path.dirname(data['tool_input']['file_path'])\nsubprocess.run(['make', '-s'], cwd=d or None)\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\nd = os.path.dirname(data['tool_input']['file_path'])\nsubprocess.run('true; make -s lint', shell=True, cwd=d)\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\nd = data['tool_input'].get('cwd') or os.getcwd()\nsubprocess.run(['make'], cwd=d)\n",
        ),
        (
            "node",
            "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nconst d = path.dirname(input.tool_input.file_path);\nprocess['chdir'](d);\nexecSync('make');\n",
        ),
        (
            "node",
            "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nprocess.chdir(path.dirname(input.tool_input.file_path));\nconst here = process.cwd();\nrequire(path.join(here, 'm'));\n",
        ),
        // Round 55: git there reads a nested repository's settings.
        (
            "node",
            "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nconst f = (input.tool_input || {}).file_path || path.join(input.cwd, 'src/app.py');\nspawnSync('git', ['diff', '--', f], { cwd: path.dirname(f), stdio: 'pipe' });\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\nfp = data['tool_input']['file_path']\nos.chdir(os.path.dirname(fp))\nsubprocess.run(['git', 'diff'])\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\nfp = data['tool_input']['file_path']\nsubprocess.run(['make', '-s', 'lint'], cwd=os.path.dirname(fp))\n",
        ),
        (
            "node",
            "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nconst f = input.tool_input.file_path;\nexecSync('npm test', {cwd: path.dirname(f)});\n",
        ),
        (
            "node",
            "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nprocess.chdir(path.dirname(input.tool_input.file_path));\nrequire(path.resolve('m'));\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\nos.chdir(os.path.dirname(data['tool_input']['file_path']))\nsys.path.insert(0, os.getcwd())\nimport m\n",
        ),
    ] {
        assert!(moves_to_computed(program, code).is_some(), "{code}");
    }
    // Round 57: `x["cwd"]` of anything but the hook input as parsed.
    for code in [
        "subprocess.run(['git', 'status'], cwd=data['cwd'])\n",
        "data = json.load(sys.stdin)\ndata = {**data, 'cwd': d}\nsubprocess.run(['make'], cwd=data['cwd'])\n",
        "data = json.loads(sys.stdin.read().replace('a', 'b'))\nsubprocess.run(['make'], cwd=data['cwd'])\n",
    ] {
        assert!(moves_to_computed("python3", code).is_some(), "{code}");
    }
    // The expression is shown as written (round 52, U52-2: `cwd=rrepo`).
    let why = moves_to_computed("python3", "subprocess.run(['sh'], cwd='a' + d)\n");
    assert!(why.is_some_and(|why| why.contains("(`cwd='a' + d`)")));
    for (program, code) in [
        ("python3", "os.chdir(os.environ['CLAUDE_PROJECT_DIR'])\n"),
        (
            "python3",
            "data = json.load(sys.stdin)\nsubprocess.run(['git', 'status'], cwd=data['cwd'])\n",
        ),
        (
            "python3",
            "subprocess.run(['git', 'status'], cwd=os.path.dirname(os.path.abspath(__file__)))\n",
        ),
        (
            "python3",
            "subprocess.run(['ruff', path], cwd='tools', check=True)\n",
        ),
        (
            "python3",
            "if x == y: pass\nsubprocess.run(['ls'], capture_output=True)\n",
        ),
        (
            "node",
            "execFileSync('git', ['status'], {cwd: process.cwd(), stdio: 'inherit'});\n",
        ),
        (
            "node",
            "spawnSync('sh', ['x.sh'], {cwd: path.join(__dirname, 'lib')});\n",
        ),
        ("perl", "chdir($ENV{CLAUDE_PROJECT_DIR});\n"),
        // Round 52 usability: the repository's top, the hook input's
        // data, a wrapper of either.
        (
            "python3",
            "repo = subprocess.check_output(['git', 'rev-parse', '--show-toplevel'], text=True).strip()\nsubprocess.run(['git', 'status'], cwd=repo)\n",
        ),
        (
            "python3",
            "path = data.get('tool_input', {}).get('file_path', '')\nsubprocess.run(['ruff', 'format', path], cwd=os.path.dirname(path) or '.')\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\nroot = Path(data.get('cwd', '.'))\nsubprocess.run(['git', 'diff'], cwd=root)\n",
        ),
        (
            "python3",
            "try:\n    data = json.load(sys.stdin)\nexcept ValueError:\n    data = {}\nsubprocess.run(['git', 'diff'], cwd=data.get('cwd', '.'))\n",
        ),
        (
            "python3",
            "data = json.load(sys.stdin)\ncwd = data.get('cwd', os.getcwd())\nsubprocess.run(['git', 'diff'], cwd=cwd)\n",
        ),
        (
            "node",
            "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nexecSync('npm test', {cwd: input.cwd});\n",
        ),
        (
            "node",
            "const root = execSync('git rev-parse --show-toplevel', { stdio: 'pipe' }).toString().trim();\nexecSync('git status', { cwd: root, stdio: 'pipe' });\n",
        ),
        (
            "perl",
            "#!/usr/bin/env -S PERL5LIB=lib perl\nuse File::Temp;\n",
        ),
        ("python3", "PYTHONPATH=src exec python3 -c 'import mypkg'\n"),
    ] {
        assert_eq!(moves_to_computed(program, code), None, "{code}");
    }
}

/// Round 56: the catch-all for moves no reading follows leaves the hook
/// input's own `cwd` read with a default alone (`data.get('cwd', '.')`).
#[test]
fn the_hook_inputs_cwd_with_a_default_is_no_unread_move() {
    let code = "import json, os, subprocess, sys\ndata = json.load(sys.stdin)\n\
                root = data.get('cwd', '.')\npath = data.get('tool_input', {}).get('file_path', '')\n\
                subprocess.run(['sh', 'tools/g.sh'])\n";
    assert_eq!(super::unread_move("python3", code), None);
    let moved = code.replace("root = ", "kw = dict([('cwd', path)])\nroot = ");
    assert!(super::unread_move("python3", &moved).is_some());
}
