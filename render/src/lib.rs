//! Board pictures for Tessera.
//!
//! Renders from the board view of `tessera-rules` only, never from move generation.
//! For now: a plain-text diagram for terminals and logs; the PNG renderer follows.

pub mod diagram;
