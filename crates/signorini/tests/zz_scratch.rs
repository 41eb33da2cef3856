use signorini::experiments::impulse::*;
use std::path::Path;
#[test]
fn scratch() {
    let mut scene = signorini::scene::load(Path::new("../../examples/book_stack.toml")).unwrap();
    scene.model.settings.duration = 0.05;
    let s2 = first_books(&scene, 2).unwrap();
    println!(
        "bodies {:?} dur {}",
        s2.model
            .bodies
            .iter()
            .map(|b| b.name.clone())
            .collect::<Vec<_>>(),
        s2.model.settings.duration
    );
    let r = book_stack(&scene, &BOOK_STACK_RUNS[2], 2).unwrap();
    println!("{:?}", (r.mean_impulses, r.final_penetration, r.top_drift));
}
