//! The domain's records: what the store keeps and the service reads, with no storage code.

mod analyses;
mod games;
mod publications;
mod tournaments;

pub use analyses::*;
pub use games::*;
pub use publications::*;
pub use tournaments::*;
