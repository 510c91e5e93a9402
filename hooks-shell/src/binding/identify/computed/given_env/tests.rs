//! The variables code gives what it starts, read as shell assignments or refused.

use super::given_variables;

#[test]
fn variables_given_by_code_are_read_as_shell_assignments() {
    for (code, expected) in [
        (
            "subprocess.run(['git'], env={**os.environ, 'PATH': 'tools:' + os.environ['PATH']})",
            "PATH=\"tools:${PATH}\"",
        ),
        (
            "os.environ[\"GIT_EXTERNAL_DIFF\"] = \"tools/d.sh\"",
            "GIT_EXTERNAL_DIFF=tools/d.sh",
        ),
        ("os.putenv('BASH_ENV', 'tools/e.sh')", "BASH_ENV=tools/e.sh"),
        (
            "spawnSync('make', [], { env: { ...process.env, MAKEFILES: 'common.mk' } })",
            "MAKEFILES=common.mk",
        ),
        (
            "env={**os.environ, 'PATH': os.path.expanduser('~/.local/bin') + os.pathsep + os.environ['PATH']}",
            "PATH=\"${HOME}/.local/bin:${PATH}\"",
        ),
        (
            "const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\nexecSync('eslint .', { env: { ...process.env, PATH: `${input.cwd}/node_modules/.bin:${process.env.PATH}` } });",
            "PATH=\"./node_modules/.bin:${PATH}\"",
        ),
        (
            "env = dict(os.environ, PATH=os.pathsep.join(['tools']))",
            "",
        ),
    ] {
        let program = if code.contains("execSync") {
            "node"
        } else {
            "python3"
        };
        let given = given_variables(program, code);
        if expected.is_empty() {
            assert!(given.unread.is_some(), "{code}");
        } else {
            assert_eq!(given.assignments, [expected], "{code}");
            assert_eq!(given.unread, None, "{code}");
        }
    }
}

#[test]
fn names_given_another_way_are_unread_and_reads_are_not() {
    for code in [
        "k = 'PATH'\nenv[k] = 'tools'",
        "k = \"BASH_ENV\"\nsubprocess.run(['bash'], env={**os.environ, k: 'x'})",
        "env = {**os.environ, 'PATH': str(pathlib.Path('tools'))}",
        // Round 57: names worked out when it runs.
        "for line in open('.env'):\n    k, _, v = line.partition('=')\n    os.environ[k] = v",
        "os.environ.update(json.load(open('env.json')))",
        "subprocess.run(['git'], env={**os.environ, **extra})",
        "subprocess.run(['git'], env=load_env())",
        "env = dict(os.environ)\nfor k, v in pairs: env[k] = v\nsubprocess.run(['git'], env=env)",
        "process.loadEnvFile(); execSync('git status')",
        "execSync('git status', { env: { ...process.env, ...extra } })",
        "const env = { ...process.env, ...extra };\nexecSync('git status', { env });",
        "$ENV{$k} = $v; system('git', 'status');",
        "os.environ['PATH'] += os.pathsep + 'tools'",
        "process.env.PATH += ':tools'; execSync('git status')",
        // Round 58: a name no reading sees.
        "subprocess.run(['x'], env={**os.environ, 'PA' 'TH': 'tools:' + os.environ['PATH']})",
        "subprocess.run(['x'], env={**os.environ, 'PATH'.strip(): 'tools'})",
        "subprocess.run(['x'], env={**os.environ, 'path'.upper(): 'tools'})",
        "subprocess.run(['x'], env=dict(os.environ, **{'PA' 'TH': 'tools'}))",
        "os.environ['PA' 'TH'] = 'tools'\nsubprocess.run(['x'])",
        "os.putenv('PATH'.strip(), 'tools')\nsubprocess.run(['x'])",
        "os.environ.update({'PA' 'TH': 'tools'})\nsubprocess.run(['x'])",
        "execSync('x', { env: { ...process.env, PATH } })",
        "const e = process.env;\ne['PA' + 'TH'] = 'tools:';\nexecSync('x')",
        "opts.env = {...process.env};\nopts.env['PA' + 'TH'] = 'tools:';\nexecSync('x', opts)",
        "os.environ |= {'PA' 'TH': 'tools'}\nsubprocess.run(['x'])",
        "load_dotenv('.env')\nsubprocess.run(['git', 'status'])",
        "load_dotenv(find_dotenv(usecwd=True))\nsubprocess.run(['git'])",
        "from dotenv import load_dotenv as lde\nlde()\nsubprocess.run(['git'])",
        "execSync('x', { env: { ...process.env, NODE_PATH: input.cwd } })",
        "execSync('x', { env: { ...process.env, HOME: process.cwd() } })",
    ] {
        assert!(given_variables("python3", code).unread.is_some(), "{code}");
    }
    for code in [
        "p = os.environ.get('PATH', '')\nh = os.environ['HOME']",
        "print('HOME is not set'); x = NODE_ENV",
        "env = {**os.environ, 'NO_COLOR': '1', 'LANG': 'C'}",
        "PROJECT = os.environ.get('CLAUDE_PROJECT_DIR', '.')",
        "env = os.environ.copy()\nenv['NO_COLOR'] = '1'\nsubprocess.run(['git'], env=env)",
        "os.environ.update(NO_COLOR='1', LANG='C')\nsubprocess.run(['git'])",
        "subprocess.run(['git'], env=dict(os.environ, LC_ALL='C'))",
        "execSync('git status', { env: { ...process.env, GIT_PAGER: 'cat' } })",
        "const env = Object.assign({}, process.env, { NO_COLOR: '1' });\nexecFileSync('git', ['status'], { env });",
        "for i in range(3): args[i] = x\nsubprocess.run(['git'])",
        "if env == 'ci': pass\nsubprocess.run(['git'])",
        // U57-3: a variable taken away.
        "env = dict(os.environ)\ndel env['PYTHONPATH']\nsubprocess.run(['git'], env=env)",
        "from dotenv import load_dotenv\nload_dotenv()\nsubprocess.run(['git'])",
        "load_dotenv(os.path.join(data['cwd'], '.env'))\nsubprocess.run(['git'])",
        "os.environ |= {'NO_COLOR': '1'}\nsubprocess.run(['git'])",
    ] {
        let given = given_variables("python3", code);
        assert_eq!(given.unread, None, "{code}");
    }
}
