//! Randomized differential testing, native side: generates random inputs for every exported function
//! (and the `ToolPolicyEngine` methods), answers each with the native JSON API, checks the SPEC §6
//! invariants on the answer, and writes one JSON line per case for the JavaScript runtimes to replay:
//!
//! ```text
//! {"function":"resolveTools","args":[{…}],"expected":"<the exact JSON text>"}
//! {"function":"label","args":["reasons","nope"],"error":{"code":"invalid_input","message":"code: …"}}
//! ```
//!
//! `cargo run --example differential -- --count N --seed S --out FILE [--mode valid|mixed] [--only F,G]`;
//! `--list` prints the functions it generates cases for.
//! `--count` is per function; `mixed` also spoils some inputs, so that error messages are compared too.

#[path = "../fuzz/src/checks.rs"]
mod checks;
#[path = "../fuzz/src/shapes.rs"]
mod shapes;

use netaclaw_tool_policy::edge::api::{self, Prepared};
use netaclaw_tool_policy::json;
use serde_json::{json, Value};
use shapes::{Mode, SplitMix};
use std::io::Write;
use std::process::ExitCode;

struct Options {
    count: usize,
    seed: u64,
    out: Option<String>,
    valid: bool,
    only: Option<Vec<String>>,
}

fn options() -> Result<Options, String> {
    let mut opts = Options { count: 1000, seed: 1, out: None, valid: true, only: None };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--count" => opts.count = value()?.parse().map_err(|e| format!("--count: {e}"))?,
            "--seed" => opts.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--out" => opts.out = Some(value()?),
            "--mode" => {
                opts.valid = match value()?.as_str() {
                    "valid" => true,
                    "mixed" => false,
                    other => return Err(format!("--mode: unknown mode {other} (valid or mixed)")),
                }
            }
            "--only" => opts.only = Some(value()?.split(',').map(str::to_string).collect()),
            "--list" => {
                // The functions the generator covers, as a JSON array (what the replay tests expect).
                println!("{}", json::to_string(&shapes::FUNCTIONS).map_err(|e| e.message())?);
                std::process::exit(0);
            }
            "-h" | "--help" => {
                return Err("usage: differential --count N --seed S --out FILE [--mode valid|mixed] [--only F,G] | --list".to_string());
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(opts)
}

/// The native answer of one case, from the arguments as the JavaScript side will read them.
fn answer(function: &str, args: &[Value]) -> Result<String, netaclaw_tool_policy::Error> {
    match function {
        "engine.resolve" => Prepared::new(&args[0])?.resolve(&args[1]).and_then(|r| json::to_string(&r)),
        "engine.diagnose" => Prepared::new(&args[0])?.diagnose(&args[1]).and_then(|r| json::to_string(&r)),
        _ => api::call(function, args),
    }
}

/// SPEC §6 invariants on a native answer (the same checks as the fuzz targets).
fn check(function: &str, args: &[Value], text: &str) {
    match function {
        "toolManifest" => checks::check_manifest(&args[0], text),
        "resolveTools" => checks::check_resolve(&args[0], text, Some("bash")),
        "buildSubprocessWorkerPolicy" => checks::check_worker_policy(&args[0], text),
        "projectRuntimePolicy" => checks::check_projection(&args[0], text, [true, false, true, false]),
        "runtimeDiagnostic" => checks::check_diagnostic(&args[0], text),
        "syncCatalog" => checks::check_sync(&args[0], &args[1], text),
        "validateToolUpdate" => checks::check_update(&args[0], text),
        "toolBehaviorGuidance" => checks::check_guidance(args, text),
        "label" => checks::check_label(args, text),
        "checkToolCall" => checks::check_call(&args[0], text),
        "engine.resolve" | "engine.diagnose" => {
            let mut merged = args[1].as_object().cloned().unwrap_or_default();
            for key in ["catalog", "governance"] {
                if let Some(v) = args[0].get(key) {
                    merged.insert(key.to_string(), v.clone());
                }
            }
            let merged = Value::Object(merged);
            let direct = if function == "engine.resolve" { "resolveTools" } else { "runtimeDiagnostic" };
            let direct_text = api::call(direct, std::slice::from_ref(&merged)).map_err(|e| e.message());
            assert_eq!(direct_text.as_deref(), Ok(text), "{function} and {direct} disagree");
        }
        _ => {}
    }
}

fn run(opts: &Options) -> Result<(), String> {
    // Every function generated for is a row of the export table (or a method of the engine).
    for function in shapes::FUNCTIONS {
        if !function.starts_with("engine.") && api::Function::parse(function).is_none() {
            return Err(format!("{function} is not an exported function"));
        }
    }
    let mut rng = SplitMix(opts.seed);
    let mode = Mode { valid: opts.valid, max_items: 12 };
    let mut out: Box<dyn Write> = match &opts.out {
        Some(path) => Box::new(std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?)),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    let mut totals = Vec::new();
    for function in shapes::FUNCTIONS {
        if opts.only.as_ref().is_some_and(|only| !only.iter().any(|f| f == function)) {
            continue;
        }
        let (mut ok, mut refused) = (0, 0);
        for _ in 0..opts.count {
            let generated = shapes::args_for(&mut rng, mode, function);
            // The arguments exactly as the other runtimes will read them from the file.
            let args_text = json::to_string(&generated).map_err(|e| e.message())?;
            let args = match json::parse(&args_text).map_err(|e| e.message())? {
                Value::Array(items) => items,
                _ => return Err("arguments are not an array".to_string()),
            };
            let line = match answer(function, &args) {
                Ok(text) => {
                    check(function, &args, &text);
                    ok += 1;
                    json!({ "function": function, "args": args, "expected": text })
                }
                Err(e) if !opts.valid => {
                    refused += 1;
                    json!({ "function": function, "args": args, "error": { "code": e.code(), "message": e.message() } })
                }
                Err(e) => return Err(format!("{function} refused a generated valid input: {}\nargs: {args_text}", e.message())),
            };
            let text = json::to_string(&line).map_err(|e| e.message())?;
            writeln!(out, "{text}").map_err(|e| e.to_string())?;
        }
        totals.push(format!("{function} {ok}+{refused}"));
    }
    out.flush().map_err(|e| e.to_string())?;
    eprintln!("differential: seed {} mode {}: {}", opts.seed, if opts.valid { "valid" } else { "mixed" }, totals.join(", "));
    Ok(())
}

fn main() -> ExitCode {
    match options().and_then(|opts| run(&opts)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("differential: {message}");
            ExitCode::FAILURE
        }
    }
}
