//! Our scanner and parser against libyaml-safer's, both under our resolver
//! and constructor: the example home's `config.yaml` and a 1 MB document of
//! config-shaped entries.
//!
//! Run: `cargo bench -p hermes-hooks-yaml --features libyaml-safer --bench backends -- --warm-up-time 1 --measurement-time 3`

// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

const CONFIG: &str = include_str!("../../examples/home/config.yaml");

/// About 1 MB of the example config, each copy under its own key.
fn megabyte() -> String {
    let indented: String = CONFIG.lines().map(|line| format!("  {line}\n")).collect();
    let mut text = String::new();
    let mut index = 0;
    while text.len() < 1 << 20 {
        text.push_str(&format!("home{index}:\n{indented}"));
        index += 1;
    }
    text
}

fn backends(c: &mut Criterion) {
    let big = megabyte();
    for (name, text) in [("config.yaml", CONFIG), ("1MB", big.as_str())] {
        let ours = hermes_hooks_yaml::parse_document(text).map(|d| d.value);
        let theirs = hermes_hooks_yaml::parse_document_libyaml(text).map(|d| d.value);
        assert_eq!(ours, theirs, "{name}: the back ends disagree");
        c.bench_function(&format!("{name}/ours"), |b| {
            b.iter(|| hermes_hooks_yaml::parse_document(black_box(text)))
        });
        c.bench_function(&format!("{name}/libyaml-safer"), |b| {
            b.iter(|| hermes_hooks_yaml::parse_document_libyaml(black_box(text)))
        });
    }
}

criterion_group!(benches, backends);
criterion_main!(benches);
