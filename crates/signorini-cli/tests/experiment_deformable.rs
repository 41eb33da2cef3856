//! `signorini experiment deformable --quick` end to end (issue 19 item 2): the table has a passing
//! row for every beam, rod and the Verlet energy drift, a reported row for Taylor's gain, and
//! `deformable.csv` parses back into rows whose measured values meet the same bounds.
use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_signorini");

#[test]
fn quick_deformable_experiment_meets_its_targets_and_writes_its_csv() {
    let dir = std::env::temp_dir().join(format!("signorini-deformable-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out: PathBuf = dir.join("out");
    let o = Command::new(BIN)
        .args(["experiment", "deformable", "--quick", "--out"])
        .arg(&out)
        .current_dir(&dir)
        .output()
        .expect("spawn signorini");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{stderr}");
    let table: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(" pass ") || l.contains(" report ") || l.contains(" FAIL "))
        .collect();
    assert_eq!(table.len(), 7, "{stdout}");
    assert_eq!(
        table.iter().filter(|l| l.contains(" pass ")).count(),
        6,
        "{stdout}"
    );
    let text = std::fs::read_to_string(out.join("deformable.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("quantity,case,measured,reference,relative_difference,bound,pass")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 7);
    for r in &rows {
        let measured: f64 = r[2].parse().unwrap();
        let reference: f64 = r[3].parse().unwrap();
        assert!(measured.is_finite() && reference.is_finite(), "{r:?}");
        if r[0].starts_with("beam") {
            // Issue 19's target: within 5% of Euler–Bernoulli.
            assert!((measured / reference - 1.0).abs() <= 0.05, "{r:?}");
        }
        if r[0].starts_with("rod") {
            // The chain's dispersion for 10 cells is (π/20)²/6 = 4.1e-3.
            assert!((measured / reference - 1.0).abs() <= 4.2e-3, "{r:?}");
        }
        if r[0].starts_with("energy drift") {
            assert!(measured <= 1e-6, "{r:?}");
        }
        if r[0].starts_with("energy E(T)") {
            // The Taylor scheme gains energy (determinant 1 + ω²τ²/2 per step).
            assert!(measured > 1.0, "{r:?}");
        }
        assert_eq!(r[6], "true", "{r:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
