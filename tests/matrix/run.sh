#!/usr/bin/env bash
# Plays whole games through the Tessera bot on a throwaway Synapse on 127.0.0.1 (see e2e.py).
# Installs Synapse and the test client into venvs under target/matrix-e2e, builds the bot, and stops
# the homeserver and the bot at the end, also on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${WORK:-$PWD/target/matrix-e2e}
PORT=${PORT:-8008}
mkdir -p "$WORK"
[ -x "$WORK/venv-synapse/bin/python" ] || { python3 -m venv "$WORK/venv-synapse"; "$WORK/venv-synapse/bin/pip" install -q matrix-synapse; }
[ -x "$WORK/venv-client/bin/python" ] || { python3 -m venv "$WORK/venv-client"; "$WORK/venv-client/bin/pip" install -q "matrix-nio[e2e]" pillow; }
cargo build -q -p tessera-bot

HSDIR="$WORK/synapse"
BOTDIR="$WORK/bot"
rm -rf "$BOTDIR"
cleanup() {
  [ -f "$HSDIR/homeserver.pid" ] && kill "$(cat "$HSDIR/homeserver.pid")" 2>/dev/null || true
}
trap cleanup EXIT
DIR="$HSDIR" PORT="$PORT" VENV="$WORK/venv-synapse" tests/matrix/start-synapse.sh
for u in tessera:botpass alice:alicepass bob:bobpass; do
  "$WORK/venv-synapse/bin/register_new_matrix_user" -u "${u%%:*}" -p "${u#*:}" --no-admin \
    -k test-shared-secret "http://127.0.0.1:$PORT" >/dev/null
done
: >"$WORK/bot.log"
export TESSERA_MATRIX_HOMESERVER="http://127.0.0.1:$PORT" TESSERA_MATRIX_USER=tessera TESSERA_MATRIX_PASSWORD=botpass
export BOT_BIN="$PWD/target/debug/tessera" BOT_DATA="$BOTDIR" BOT_LOG="$WORK/bot.log" HS="http://127.0.0.1:$PORT"
"$WORK/venv-client/bin/python" tests/matrix/e2e.py 2>"$WORK/client.log" || { echo "--- bot log"; tail -30 "$WORK/bot.log"; exit 1; }
