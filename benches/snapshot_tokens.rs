//! Bytes and tokens of snapshot texts, for `benches/snapshot_text.py` (which writes ours and
//! Playwright's texts of the same pages): one JSON line per file given,
//! `{"file": …, "bytes": …, "tokens": …}`, tokens by OpenAI's `o200k_base` BPE (GPT-4o and
//! later), from tiktoken-rs, which carries the merge table (no download).
//!
//!     cargo bench --bench snapshot_tokens -- FILE...

fn main() {
    let files: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if files.is_empty() {
        eprintln!("usage: cargo bench --bench snapshot_tokens -- FILE...");
        std::process::exit(2);
    }
    let bpe = match tiktoken_rs::o200k_base() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("the o200k_base tokenizer did not load: {e}");
            std::process::exit(1);
        }
    };
    for file in files {
        match std::fs::read_to_string(&file) {
            Ok(text) => {
                let tokens = bpe.encode_ordinary(&text).len();
                println!(
                    "{}",
                    serde_json::json!({"file": file, "bytes": text.len(), "tokens": tokens})
                );
            }
            Err(e) => {
                eprintln!("{file}: {e}");
                std::process::exit(1);
            }
        }
    }
}
