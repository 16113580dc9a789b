//! The domain's records: what the store keeps and the service reads, with no storage code.

mod games;
mod tournaments;

pub use games::*;
pub use tournaments::*;
