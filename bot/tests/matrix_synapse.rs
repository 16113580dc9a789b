//! The Matrix adapter end to end on a real homeserver: `tests/matrix/run.sh` installs Synapse and a
//! matrix-nio client from PyPI (into `target/matrix-e2e`), starts Synapse on 127.0.0.1, and plays whole
//! games through this build of the bot in a plain and in an encrypted room, restarting the bot
//! mid-game; then a tournament (its export attached, each player's word by direct message), a
//! practice game across a restart of the homeserver, a command in a thread, eight commands under
//! the homeserver's message rate limit, messages the bot cannot decrypt, invites from outside the
//! allowlist, and games each played in a thread of its own (`tests/matrix/e2e.py`). It needs python3 and PyPI; without them it fails, it
//! does not skip.

use std::process::Command;

#[test]
fn whole_games_on_a_real_synapse_plain_and_encrypted() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    // A free port, so parallel runs and a developer's own homeserver do not collide.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let work = format!("{root}/target/matrix-e2e");
    let output = Command::new("bash")
        .arg(format!("{root}/tests/matrix/run.sh"))
        .env("BOT_BIN", env!("CARGO_BIN_EXE_tessera"))
        .env("PORT", port.to_string())
        .env("WORK", &work)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let client_log = std::fs::read_to_string(format!("{work}/client.log")).unwrap_or_default();
    assert!(
        output.status.success() && stdout.contains("MATRIX E2E OK"),
        "the Matrix end-to-end run failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}\n--- client log (tail)\n{}",
        client_log
            .lines()
            .rev()
            .take(40)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
