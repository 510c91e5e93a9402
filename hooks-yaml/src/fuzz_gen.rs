//! The differential test's corpus: seeded, so a failure names a document
//! that can be rebuilt. Hermes-like configs mutated around the places YAML
//! readers disagree (line breaks NEL/LS/PS and CR, tabs, wrapped flow
//! collections, folded quoted scalars, BOM/U+FEFF, anchors and aliases, YAML
//! 1.1 scalars, duplicate keys, indentation), plus randomly built documents.

/// A small deterministic generator (xorshift64*), no dependency.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub(super) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % u64::try_from(n.max(1)).unwrap_or(1)).unwrap_or(0)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Hermes configs and HOOK.yaml shapes the mutations start from.
const TEMPLATES: &[&str] = &[
    "hooks:\n  pre_tool_call:\n    - command: ./guard.sh\n      matcher: terminal\n      timeout: 10\n      fail_closed: true\nhooks_auto_accept: false\n",
    "# settings\nmodel:\n  provider: openrouter\n  name: x\nhooks:\n  post_tool_call:\n    - command: \"echo done\"\n",
    "plugins:\n  hook_callback_timeout: 30\n  required: [guard, audit]\nhooks:\n  outbound:\n    - url: https://example.com/hook\n      events: [pre_tool_call, post_tool_call]\n",
    "name: my-hook\ndescription: >\n  Logs every\n  session start.\nevents:\n  - gateway:startup\n  - session:start\n",
    "base: &b {timeout: 5, fail_closed: yes}\nhooks:\n  pre_tool_call:\n    - <<: *b\n      command: ./a.sh\n    - <<: *b\n      command: ./b.sh\n",
    "hooks:\n  pre_tool_call: [{command: ./a.sh, matcher: 'terminal|write'}, {command: ./b.sh}]\n",
    "key: |\n  line one\n  line two\n\nother: 'it''s'\nlist:\n- a\n- b\n",
    "? complex\n: value\nempty:\nnull_key: ~\nnums: [0x1F, 017, 1_000, 1:30, .5, 1e5, 1.0e+2, -.inf, .NaN]\n",
    "bools: [yes, No, on, OFF, y, n, True, tRUE]\nstrs: [\"a\\tb\", 'c\\d', \"\\u263A\", \"x\\\n  y\"]\n",
    "a:\n  b:\n    c: 1\n  d: 2\ne: 3\n",
    "%TAG !e! tag:example.com,2000:\n--- !!map\nset: !!set {a, b}\nomap: !!omap [a: 1, b: 2]\npairs: !!pairs [{a: 1}]\nbin: !!binary aGVsbG8=\n...\n",
    "plain: this is\n  folded over\n\n  lines\nquoted: 'single\n\n  folded'\ndq: \"esc \\x41 \\N \\L \\_ \\e\"\n",
    "? [a, b]\n: seq key\n? {x: 1}\n: map key\n1: int\n1.5: float\nnull: n\ntrue: t\n.inf: i\n",
    "lit: |2\n   indented\n  less\nfold: >-\n  a\n  b\n\n  c\nkeep: |+\n  k\n\nend: 1\n",
    "- &x {a: 1}\n- *x\n- [*x, *x]\n- {<<: [*x, {b: 2}], c: 3}\n- !!str &y 12\n- *y\n",
    "flow: {a: [1, {b: c}], 'd': \"e\", ? f : g, h}\nseq: [a, b: c, ? d]\nempty: [ ]\nm: { }\n",
    "k: v # comment\n# full line\nlist:\n- a # c\n-   b\n- - nested\n  - more\n-\n  x: 1\n",
    "1e20: a\n1.0e+20: b\n0.1: c\n100000000000000000000: d\n0x10: e\n-0: f\n+1: g\n1_0.5: h\n",
    "k: 1\n'k': 2\n\"k\": 3\n? k\n: 4\n~: 5\n'': 6\n",
    "hooks:\n  pre_tool_call:\n  - command: \"a\\\n    b\"\n    matcher: >-\n      terminal|\n      write\n",
];

/// Fragments inserted or substituted by the mutations.
const FRAGMENTS: &[&str] = &[
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\r\n",
    "\r",
    "\n",
    "\t",
    " \t",
    "\t ",
    "\u{feff}",
    " ",
    "  ",
    "# c",
    " #",
    ":",
    ": ",
    "- ",
    "-",
    "?",
    "? ",
    "[",
    "]",
    "{",
    "}",
    ",",
    ", ",
    "'",
    "\"",
    "\\",
    "&a ",
    "*a",
    " *a",
    "<<: ",
    "<<",
    "!!str ",
    "!!int ",
    "! ",
    "!x ",
    "|",
    ">",
    "|-\n  ",
    ">+\n  ",
    "yes",
    "on",
    "0x1F",
    "017",
    "1_0",
    "1:30",
    ".inf",
    "~",
    "null",
    "=",
    "---",
    "...",
    "\n---\n",
    "2001-12-14",
    "%YAML 1.1\n---\n",
    "\u{a0}",
    "é",
    "\u{200b}",
    "hooks_auto_accept: true",
    "\n  ",
    "\n    ",
    "\n\n",
    "\"a\nb\"",
    "[a,\nb]",
    "{a: 1,\nb: 2}",
    "'x\n\n y'",
    "\u{7f}",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let operations = match rng.below(10) {
        0..=5 => 1,
        6..=8 => 2,
        _ => 3,
    };
    for _ in 0..operations {
        let at = rng.below(chars.len() + 1);
        let fragment: Vec<char> = rng.pick(FRAGMENTS).chars().collect();
        match rng.below(3) {
            // Insert.
            0 => {
                chars.splice(at..at, fragment);
            }
            // Replace one character.
            1 if at < chars.len() => {
                chars.splice(at..=at, fragment);
            }
            // Swap a line break or a space for a lookalike.
            _ => {
                let breaks = ['\n', ' ', '\t', '\u{85}', '\u{2028}', '\u{2029}', '\r'];
                if let Some(position) = chars[at.min(chars.len())..]
                    .iter()
                    .position(|c| matches!(c, '\n' | ' '))
                {
                    chars[at + position] = breaks[rng.below(breaks.len())];
                }
            }
        }
    }
    chars.into_iter().collect()
}

const SCALARS: &[&str] = &[
    "a",
    "plain text",
    "yes",
    "No",
    "on",
    "~",
    "null",
    "12",
    "-0x1f",
    "0b101",
    "017",
    "1_000",
    "1:30",
    "1.5",
    "1e5",
    "1.0e+2",
    ".5",
    ".inf",
    "-.Inf",
    ".nan",
    "0o17",
    "2001-12-14",
    "'q'",
    "\"dq\"",
    "'it''s'",
    "\"\\x41\\u263a\"",
    "\"a\\\n b\"",
    "x\u{feff}y",
    "a#b",
    "a #b",
    "-x",
    "?x",
    ":x",
    "x:y",
    "@",
    "`",
    "%",
    "!!str 1",
    "!!int '7'",
    "!!float '2'",
    "!!bool yes",
    "!!null ''",
    "=",
    "<<",
    "\"\"",
    "''",
    "3.",
    "+1",
    "0",
    "-0",
    "1__0",
    "12:60",
    "0xG",
];

/// A random document: nested block and flow collections, random styles.
fn build(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
    let pad = " ".repeat(indent);
    let kind = if depth > 3 { 2 } else { rng.below(5) };
    match kind {
        0 => {
            for index in 0..=rng.below(3) {
                out.push_str(&format!("{pad}k{index}:"));
                if rng.chance(40) && depth < 4 {
                    out.push('\n');
                    build(rng, out, indent + 2, depth + 1);
                } else {
                    out.push(' ');
                    out.push_str(rng.pick(SCALARS));
                    out.push('\n');
                }
            }
        }
        1 => {
            for _ in 0..=rng.below(3) {
                out.push_str(&format!("{pad}-"));
                if rng.chance(30) && depth < 4 {
                    out.push('\n');
                    build(rng, out, indent + 2, depth + 1);
                } else {
                    out.push(' ');
                    out.push_str(rng.pick(SCALARS));
                    out.push('\n');
                }
            }
        }
        2 => {
            let items: Vec<String> = (0..=rng.below(4))
                .map(|_| rng.pick(SCALARS).to_owned())
                .filter(|s| !s.starts_with('!') && !s.contains(':'))
                .collect();
            let separator = if rng.chance(30) { ",\n" } else { ", " };
            out.push_str(&format!("{pad}[{}]\n", items.join(separator)));
        }
        3 => {
            out.push_str(&format!("{pad}x: &a {}\n", rng.pick(SCALARS)));
            out.push_str(&format!("{pad}y: *a\n"));
            out.push_str(&format!("{pad}m: &m {{p: 1, q: {}}}\n", rng.pick(SCALARS)));
            out.push_str(&format!("{pad}n: {{<<: *m, q: 2}}\n"));
        }
        _ => {
            out.push_str(&format!("{pad}dup: 1\n{pad}dup: {}\n", rng.pick(SCALARS)));
            out.push_str(&format!(
                "{pad}block: {}\n",
                rng.pick(&["|", ">", "|-", ">+", "|2"])
            ));
            out.push_str(&format!(
                "{pad}  text {}\n{pad}   more\n\n",
                rng.pick(SCALARS)
            ));
        }
    }
}

/// A whole-document change: every line break one kind, a leading BOM, or
/// the indentation doubled.
fn transform(rng: &mut Rng, text: &str) -> String {
    match rng.below(6) {
        0 => text.replace(
            '\n',
            rng.pick(&["\u{85}", "\u{2028}", "\u{2029}", "\r\n", "\r"]),
        ),
        1 => format!("\u{feff}{text}"),
        2 => text.replace("\n  ", "\n    "),
        3 => text.replace("\n  ", "\n\t"),
        4 => text.replace(": ", ":\t"),
        _ => text.replace(", ", ",\n"),
    }
}

/// `count` documents from `seed`.
pub(super) fn corpus(seed: u64, count: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut docs = Vec::with_capacity(count);
    for index in 0..count {
        let doc = if index % 3 == 2 {
            let mut text = String::new();
            build(&mut rng, &mut text, 0, 0);
            if rng.chance(50) {
                mutate(&mut rng, &text)
            } else {
                text
            }
        } else {
            let template = rng.pick(TEMPLATES);
            mutate(&mut rng, template)
        };
        let doc = if rng.chance(20) {
            transform(&mut rng, &doc)
        } else {
            doc
        };
        docs.push(doc);
    }
    docs
}
