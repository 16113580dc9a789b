#!/usr/bin/env bash
# Plays whole games through the Tessera bot on a throwaway Synapse on 127.0.0.1 (see e2e.py).
# Installs Synapse and the test client into venvs under target/matrix-e2e (pinned versions), builds
# the bot unless BOT_BIN names it, and stops the homeserver and the bot at the end, also on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${WORK:-$PWD/target/matrix-e2e}
PORT=${PORT:-8008}
mkdir -p "$WORK"
# A venv counts as installed only once pip has finished (a stamp file), so an interrupted install is redone.
venv() {
  local dir="$WORK/$1"; shift
  if [ ! -f "$dir/.installed" ]; then
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install -q --disable-pip-version-check "$@"
    touch "$dir/.installed"
  fi
}
venv venv-synapse matrix-synapse==1.163.2
venv venv-client "matrix-nio[e2e]==0.26.0" pillow==13.0.0
# `run.sh --install` only prepares the venvs (.ci/run does, before the tests).
[ "${1:-}" = "--install" ] && exit 0
# `cargo test` passes the binary it built (bot/tests/matrix_synapse.rs); run by hand, build it here.
if [ -z "${BOT_BIN:-}" ]; then
  cargo build -q -p tessera-bot
  BOT_BIN="$PWD/target/debug/tessera"
fi

HSDIR="$WORK/synapse"
BOTDIR="$WORK/bot"
rm -rf "$BOTDIR"
CLIENT=
cleanup() {
  [ -n "$CLIENT" ] && kill "$CLIENT" 2>/dev/null || true
  # The bot is the client's child; a killed client cannot stop it.
  pkill -f -- "--data-dir $BOTDIR" 2>/dev/null || true
  [ -f "$HSDIR/homeserver.pid" ] && kill "$(cat "$HSDIR/homeserver.pid")" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM
DIR="$HSDIR" PORT="$PORT" VENV="$WORK/venv-synapse" tests/matrix/start-synapse.sh
for u in tessera:botpass alice:alicepass bob:bobpass; do
  "$WORK/venv-synapse/bin/register_new_matrix_user" -u "${u%%:*}" -p "${u#*:}" --no-admin \
    -k test-shared-secret "http://127.0.0.1:$PORT" >/dev/null
done
# The homeserver's administrator: lifts and puts back rate limits, lists a room's members.
"$WORK/venv-synapse/bin/register_new_matrix_user" -u admin -p adminpass --admin \
  -k test-shared-secret "http://127.0.0.1:$PORT" >/dev/null
: >"$WORK/bot.log"
export TESSERA_MATRIX_HOMESERVER="http://127.0.0.1:$PORT" TESSERA_MATRIX_USER=tessera TESSERA_MATRIX_PASSWORD=botpass
# Only alice's invites: bob's are declined (e2e.py checks).
export TESSERA_MATRIX_INVITES_FROM=@alice:localhost
# So e2e.py can stop the homeserver and start it again (a dropped connection).
export SYNAPSE_DIR="$HSDIR" SYNAPSE_PY="$WORK/venv-synapse/bin/python"
export BOT_BIN BOT_DATA="$BOTDIR" BOT_LOG="$WORK/bot.log" HS="http://127.0.0.1:$PORT"
# Debug-level logs from the bot and matrix-sdk, which e2e.py searches for secrets.
export RUST_LOG=debug
# In the background and waited for, so that a signal runs the cleanup at once.
"$WORK/venv-client/bin/python" tests/matrix/e2e.py 2>"$WORK/client.log" &
CLIENT=$!
wait "$CLIENT" || { CLIENT=; echo "--- bot log"; tail -30 "$WORK/bot.log"; exit 1; }
CLIENT=
