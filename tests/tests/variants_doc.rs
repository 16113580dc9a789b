//! `docs/variants.md` is made from the built-in variants' files (`data/variants/`): this test fails while
//! the file says something else. `TESSERA_BLESS=1` rewrites it, as does
//! `cargo run -p tessera-bot -- variants --markdown > docs/variants.md`.

use std::path::PathBuf;

use tessera_rules::Variant;
use tessera_rules::variant::variants_markdown;

fn docs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs")
}

#[test]
fn docs_variants_md_is_what_the_files_say() {
    let file = docs_dir().join("variants.md");
    let want = variants_markdown();
    if std::env::var_os("TESSERA_BLESS").is_some() {
        std::fs::write(&file, &want).unwrap();
        return;
    }
    let got = std::fs::read_to_string(&file).unwrap_or_default();
    if got != want {
        let line = got.lines().zip(want.lines()).position(|(g, w)| g != w).unwrap_or(got.lines().count());
        panic!(
            "{} differs from the built-in variants from line {}; regenerate it with \
             `cargo run -p tessera-bot -- variants --markdown > docs/variants.md` (or TESSERA_BLESS=1)",
            file.display(),
            line + 1
        );
    }
}

#[test]
fn every_variants_rules_page_exists() {
    for &v in Variant::ALL {
        let page = docs_dir().join("rules").join(v.info().rules_page);
        assert!(page.is_file(), "{v}: {} is missing", page.display());
    }
}
