//! The `actionbook` binary: everything lives in the library; this only hands over the process.
fn main() -> std::process::ExitCode {
    actionbook_cli::cli::main()
}
