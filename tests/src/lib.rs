//! Shared helpers for the data-driven tests live in the test files themselves.
