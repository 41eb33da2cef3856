//! Bundles the replay page's script (`web/`: three.js and the page's own code, docs/replay.md)
//! into `OUT_DIR/replay.js`, which `src/replay.rs` embeds in every `replay.html`.
//!
//! The bundle is made here from `web/node_modules`, never committed: `npm ci` installs the
//! pinned packages of `web/package-lock.json` when `web/node_modules` is missing or was installed
//! from another lock file (a copy of the lock in node_modules records the lock it came from), then esbuild
//! bundles `web/src/main.js`. Needs Node.js (20 or later) and npm on the PATH.
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let web = manifest.join("../../web");
    let web = web.canonicalize().unwrap_or(web);
    for p in ["src", "package.json", "package-lock.json"] {
        println!("cargo:rerun-if-changed={}", web.join(p).display());
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    if let Err(e) = bundle(&web, &out.join("replay.js")) {
        // Cargo shows a failed build script's stderr: say what failed and what to do.
        eprintln!("\nsignorini-cli: cannot build the replay page's script (web/): {e}\n");
        std::process::exit(1);
    }
}

fn bundle(web: &Path, out: &Path) -> Result<(), String> {
    let lock = std::fs::read(web.join("package-lock.json")).map_err(|e| {
        format!(
            "cannot read {}: {e}",
            web.join("package-lock.json").display()
        )
    })?;
    // A copy of the lock file node_modules was installed from (scripts/test-web.sh writes it
    // too after its own `npm ci`).
    let stamp_path = web.join("node_modules/.signorini-lock-stamp");
    let installed = std::fs::read(&stamp_path).ok();
    if installed.as_deref() != Some(lock.as_slice()) {
        let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
        match Command::new(npm).arg("--version").output() {
            Ok(o) if o.status.success() => {}
            _ => {
                return Err(
                    "npm was not found on the PATH. Install Node.js 20 or later with npm \
                     (Debian/Ubuntu: `apt-get install nodejs npm`), \
                     then build again; the build runs `npm ci` in web/ once to install three.js \
                     and esbuild from the npm registry."
                        .into(),
                );
            }
        }
        let status = Command::new(npm)
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(web)
            .status()
            .map_err(|e| format!("cannot run `npm ci` in {}: {e}", web.display()))?;
        if !status.success() {
            return Err(format!(
                "`npm ci` in {} failed ({status}); see its output above (it needs the npm \
                 registry the first time)",
                web.display()
            ));
        }
        std::fs::write(&stamp_path, &lock)
            .map_err(|e| format!("cannot write {}: {e}", stamp_path.display()))?;
    }
    // node_modules/.bin/esbuild: a script or, once esbuild's install step has run, its native
    // binary; either runs by itself.
    let esbuild = web.join(if cfg!(windows) {
        "node_modules/.bin/esbuild.cmd"
    } else {
        "node_modules/.bin/esbuild"
    });
    let status = Command::new(&esbuild)
        .arg("src/main.js")
        .args([
            "--bundle",
            "--minify",
            "--format=iife",
            "--target=es2020",
            "--loader:.css=text",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", out.display()))
        .current_dir(web)
        .status()
        .map_err(|e| {
            format!(
                "cannot run {}: {e}; remove web/node_modules to reinstall it, and install \
                 Node.js 20 or later",
                esbuild.display()
            )
        })?;
    if !status.success() {
        return Err(format!("esbuild failed ({status}); see its output above"));
    }
    // The bundle goes inside a <script> element: these sequences would end or confuse it.
    let js = std::fs::read_to_string(out).map_err(|e| format!("cannot read the bundle: {e}"))?;
    let lower = js.to_ascii_lowercase();
    for bad in ["</script", "<!--"] {
        if lower.contains(bad) {
            return Err(format!(
                "the bundle contains `{bad}`, which cannot be inlined in a <script> element"
            ));
        }
    }
    Ok(())
}
