//! Perft from data files: `tests/data/perft/<variant>.perft`.
//!
//! Each file holds blocks of `id NAME`, `epd POSITION` and `perft DEPTH NODES` lines. Lines above the
//! node limit are left out of ordinary runs (and counted as such in the output, never as passes);
//! `TESSERA_PERFT_FULL=1` runs them all.

use std::path::Path;

use tessera_rules::{Position, Variant, perft};

const DEFAULT_NODE_LIMIT: u64 = 20_000_000;

struct Case {
    id: String,
    fen: String,
    depth: u32,
    nodes: u64,
}

fn load(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut cases = Vec::new();
    let (mut id, mut fen) = (String::new(), String::new());
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) =
            line.split_once(' ').unwrap_or_else(|| panic!("{}:{}: bad line", path.display(), n + 1));
        match key {
            "id" => id = value.to_string(),
            "epd" => fen = value.to_string(),
            "perft" => {
                let (d, nodes) = value.split_once(' ').unwrap();
                cases.push(Case {
                    id: id.clone(),
                    fen: fen.clone(),
                    depth: d.parse().unwrap(),
                    nodes: nodes.parse().unwrap(),
                });
            }
            other => panic!("{}:{}: unknown key {other}", path.display(), n + 1),
        }
    }
    cases
}

/// A variant is its row in the table and its perft file (`docs/adding-a-variant.md`).
#[test]
fn every_variant_has_a_perft_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/perft");
    for &v in Variant::ALL {
        let file = dir.join(format!("{}.perft", v.name()));
        assert!(file.is_file(), "{v} has no perft file: {} is missing", file.display());
        assert!(!load(&file).is_empty(), "{} has no cases", file.display());
    }
}

#[test]
fn perft_suites() {
    let full = std::env::var_os("TESSERA_PERFT_FULL").is_some();
    let limit = if full { u64::MAX } else { DEFAULT_NODE_LIMIT };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/perft");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let (mut ran, mut left_out, mut failures) = (0, 0, Vec::new());
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "perft")) {
        let variant: Variant = file.file_stem().unwrap().to_str().unwrap().parse().unwrap();
        let cases = load(file);
        assert!(!cases.is_empty(), "{} has no cases", file.display());
        for case in cases {
            if case.nodes > limit {
                left_out += 1;
                continue;
            }
            let pos = Position::from_fen(variant, &case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.id));
            let got = perft(&pos, case.depth);
            ran += 1;
            if got != case.nodes {
                failures.push(format!(
                    "{variant} {} depth {}: expected {}, got {}",
                    case.id, case.depth, case.nodes, got
                ));
            }
        }
    }
    println!(
        "perft: {ran} cases run, {left_out} above the node limit left out (TESSERA_PERFT_FULL=1 runs them)"
    );
    assert!(ran >= 40, "too few perft cases ran: {ran}");
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
}
