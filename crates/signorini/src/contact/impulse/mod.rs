//! Impulse-based contact: single-point collision laws (`law`). The simulation loops that call them
//! (sequential impulses, microcollisions, the impulse + penalty hybrid) are later work.
pub mod law;
