//! The domain's records: what the store keeps and the service reads, with no storage code.

mod games;
mod publications;
mod tournaments;

pub use games::*;
pub use publications::*;
pub use tournaments::*;
