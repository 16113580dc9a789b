"""End-to-end test of the Tessera bot on a real Matrix homeserver (Synapse on 127.0.0.1).

Two players (matrix-nio clients) play a whole game against each other through the bot, in a plain
room and in an end-to-end encrypted room, checking every reply and that each board picture
downloads, decrypts where the room is encrypted, and decodes to exactly the pixels `tessera render`
draws for the position expected at that point (last move marked, seen from the side to move).
Exits non-zero on the first failure.
"""

import asyncio
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from nio import AsyncClient, AsyncClientConfig, MegolmEvent, RoomEncryptedImage, RoomMessageImage
from nio.crypto.attachments import decrypt_attachment
from PIL import Image

HS = os.environ.get("HS", "http://127.0.0.1:8008")
BOT_ID = "@tessera:localhost"
TIMEOUT = float(os.environ.get("STEP_TIMEOUT", "60"))


BOT = None


def fail(msg):
    print(f"MATRIX E2E FAILED: {msg}", flush=True)
    stop_bot()
    sys.exit(1)


def start_bot(fault=None):
    """The bot as its own process, so the test can restart it (BOT_BIN, BOT_DATA, TESSERA_MATRIX_*).
    With `fault`, the bot ends itself at that point (TESSERA_FAULT)."""
    global BOT
    log = open(os.environ["BOT_LOG"], "a")
    env = dict(os.environ, TESSERA_FAULT=fault) if fault else None
    BOT = subprocess.Popen([os.environ["BOT_BIN"], "--data-dir", os.environ["BOT_DATA"]], stdout=log, stderr=log, env=env)


def run_to_fault(fault):
    """Starts the bot with `fault` and waits for it to end itself there."""
    global BOT
    start_bot(fault)
    try:
        code = BOT.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        fail(f"the bot never reached the fault {fault}")
    BOT = None
    if code != 86:
        fail(f"the bot ended with {code} before reaching the fault {fault}")


def expected_board(moves, flip):
    """The picture the bot should post after `moves`: drawn by the same binary's `render` command."""
    out = tempfile.mktemp(suffix=".png")
    args = [os.environ["BOT_BIN"], "render", "--moves", "-", "--size", "512", "--white", "alice", "--black", "bob", "-o", out]
    args += ["--flip"] if flip else []
    subprocess.run(args, input=" ".join(moves).encode(), check=True, capture_output=True)
    with Image.open(out) as img:
        img.load()
        return img.convert("RGB")


def stop_bot():
    global BOT
    if BOT is not None:
        BOT.terminate()
        BOT.wait(timeout=30)
        BOT = None


async def player(name, password):
    store = tempfile.mkdtemp(prefix=f"nio-{name}-")
    config = AsyncClientConfig(encryption_enabled=True, store_sync_tokens=True)
    client = AsyncClient(HS, f"@{name}:localhost", store_path=store, config=config)
    resp = await client.login(password)
    if not getattr(client, "access_token", None):
        fail(f"{name} cannot log in: {resp}")
    await client.sync(timeout=1000, full_state=True)
    await keys(client)
    return client


async def keys(client):
    """What nio's sync loop would do: publish our keys, learn other devices' keys."""
    if client.should_upload_keys:
        await client.keys_upload()
    if client.should_query_keys:
        await client.keys_query()
    if client.should_claim_keys:
        await client.keys_claim(client.get_users_for_key_claiming())


def download(client, mxc):
    server, media = mxc[len("mxc://"):].split("/", 1)
    req = urllib.request.Request(
        f"{HS}/_matrix/client/v1/media/download/{server}/{media}",
        headers={"Authorization": f"Bearer {client.access_token}"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


class Watcher:
    """Collects what the bot says in a room, as seen by one client."""

    def __init__(self, client, room_id):
        self.client, self.room_id = client, room_id
        self.texts, self.images, self.gifs = [], [], []
        self.mentions = {}  # text -> the user ids its m.mentions names
        self.infos = []  # (w, h, mimetype) announced with each picture
        client.add_event_callback(self.on_event, (object,))

    async def on_event(self, room, event):
        if room.room_id != self.room_id or getattr(event, "sender", None) != BOT_ID:
            return
        if isinstance(event, MegolmEvent):
            return  # not decrypted (yet)
        if isinstance(event, (RoomEncryptedImage, RoomMessageImage)):
            info = (event.source or {}).get("content", {}).get("info", {})
            if isinstance(event, RoomEncryptedImage):
                data = download(self.client, event.url)
                data = decrypt_attachment(data, event.key["k"], event.hashes["sha256"], event.iv)
            else:
                data = download(self.client, event.url)
            # A finished game's GIF is kept apart from the board pictures.
            if info.get("mimetype") == "image/gif":
                self.gifs.append(data)
                return
            self.infos.append((info.get("w"), info.get("h"), info.get("mimetype")))
            self.images.append(data)
        elif hasattr(event, "body"):
            self.texts.append(event.body)
            content = (event.source or {}).get("content", {})
            self.mentions[event.body] = content.get("m.mentions", {}).get("user_ids", [])

    async def wait_for(self, needle, images=0):
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            found = [t for t in self.texts if needle in t]
            if found and len(self.images) >= images:
                return found[-1]
            await self.client.sync(timeout=1000)
            await keys(self.client)
        fail(f"no reply containing {needle!r} within {TIMEOUT}s; the bot said: {self.texts[-5:]}")


async def say(client, room_id, text, encrypted, html=None):
    await client.sync(timeout=500)
    await keys(client)
    content = {"msgtype": "m.text", "body": text}
    if html:
        content.update(format="org.matrix.custom.html", formatted_body=html)
    await client.room_send(room_id, "m.room.message", content, ignore_unverified_devices=True)


async def play_game(alice, bob, encrypted):
    initial = [{"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}}] if encrypted else []
    room = await alice.room_create(invite=["@bob:localhost", BOT_ID], initial_state=initial, name="tessera e2e")
    room_id = room.room_id
    await bob.join(room_id)
    # Wait for the bot to join.
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        await alice.sync(timeout=1000)
        r = alice.rooms.get(room_id)
        if r and BOT_ID in r.users:
            break
    else:
        fail("the bot did not join the room")
    for c in (alice, bob):
        await c.sync(timeout=1000)
        await keys(c)
    watch_a, watch_b = Watcher(alice, room_id), Watcher(bob, room_id)
    if encrypted:
        await say(alice, room_id, "!t challenge @bob:localhost chess white", encrypted)
    else:
        # As Element sends a mention: the display name in the body, the ID only in a pill.
        pill = '<a href="https://matrix.to/#/@bob:localhost">bob</a>'
        await say(alice, room_id, "!t challenge bob chess white", encrypted, html=f"!t challenge {pill} chess white")
    challenge = await watch_b.wait_for("challenges bob")
    if watch_b.mentions.get(challenge) != ["@bob:localhost"]:
        fail(f"the challenge should mention bob (m.mentions), it mentions {watch_b.mentions.get(challenge)}")
    await say(bob, room_id, "!t accept", encrypted)
    await watch_a.wait_for("begins", images=1)
    moves = [(alice, watch_b, "f3"), (bob, watch_a, "e5"), (alice, watch_b, "g4"), (bob, watch_a, "Qh4#")]
    for i, (who, watcher, move) in enumerate(moves):
        if i == 1 and not encrypted:
            # The catch-up window: the bot is killed after matrix-sdk saved the sync that brought
            # the move and before the move was answered. Restarted, it still answers it.
            stop_bot()
            await say(who, room_id, move, encrypted)
            run_to_fault("matrix-before-answer")
            start_bot()
            await watcher.wait_for(f"played {move}", images=2 + i)
            continue
        if i == 2 and encrypted:
            # The bot goes down mid-game and the move is sent while it is away: restarted, it keeps
            # its session and keys and answers the move (and a question asked earlier) in order.
            stop_bot()
            await say(alice, room_id, "!t games", encrypted)
            await say(who, room_id, move, encrypted)
            start_bot()
            await watch_a.wait_for("alice to move (white)")
            await watcher.wait_for(f"played {move}", images=2 + i)
            await watch_a.wait_for(f"played {move}")
            games_at = max(k for k, t in enumerate(watch_a.texts) if "alice to move (white)" in t)
            played_at = max(k for k, t in enumerate(watch_a.texts) if f"played {move}" in t)
            if games_at > played_at:
                fail(f"what was said while the bot was down was answered out of order: {watch_a.texts[-4:]}")
            continue
        await say(who, room_id, move, encrypted)
        await watcher.wait_for(f"played {move.rstrip('#')}", images=2 + i)
    final = await watch_a.wait_for("Black wins by checkmate", images=5)
    # A wrong turn is refused with a reason.
    if encrypted:
        await say(alice, room_id, "!t board", encrypted)
    else:
        # Addressing the bot with its mention pill, as Element writes it, works like `!t`.
        pill = f'<a href="https://matrix.to/#/{BOT_ID}">tessera</a>'
        await say(alice, room_id, "tessera: board", encrypted, html=f"{pill}: board")
    await watch_a.wait_for("game over", images=6)
    # Start, after each of the four moves, and `!t board` at the end; Black's turns are seen from Black.
    played = [m for _, _, m in moves]
    expected = [(played[:n], n % 2 == 1) for n in range(5)] + [(played, False)]
    if len(watch_a.images) != len(expected):
        fail(f"{len(watch_a.images)} board pictures, expected {len(expected)}")
    for i, (png, (upto, flip)) in enumerate(zip(watch_a.images, expected)):
        img = Image.open(io.BytesIO(png))
        if img.format != "PNG":
            fail(f"board picture {i} is {img.format}, not PNG")
        want = expected_board(upto, flip)
        if watch_a.infos[i] != (want.size[0], want.size[1], "image/png"):
            fail(f"board picture {i} announces {watch_a.infos[i]}, not its size {want.size} as image/png")
        if img.size != want.size or img.convert("RGB").tobytes() != want.tobytes():
            fail(f"board picture {i} is not the board after {upto} (flipped: {flip})")
    # The finished game is posted as a GIF too: one frame per position.
    deadline = time.time() + TIMEOUT
    while not watch_a.gifs and time.time() < deadline:
        await alice.sync(timeout=1000)
    if len(watch_a.gifs) != 1:
        fail(f"{len(watch_a.gifs)} game GIFs, expected 1")
    gif = Image.open(io.BytesIO(watch_a.gifs[0]))
    if gif.format != "GIF" or getattr(gif, "n_frames", 1) != 5:
        fail(f"the game GIF is {gif.format} with {getattr(gif, 'n_frames', 1)} frames, expected 5")
    print(f"{'encrypted' if encrypted else 'plain'} room: {final!r}; {len(watch_a.images)} boards and the game GIF checked", flush=True)
    if not encrypted:
        await play_tournament(alice, bob, room_id, watch_a, watch_b)
        await play_practice(alice, room_id, watch_a)


async def play_practice(alice, room_id, watch_a):
    """A game against the bot itself: it starts at once, and the bot answers a move on its own
    (from its worker thread, through the notice inbox) with a board picture."""
    images = len(watch_a.images)
    await say(alice, room_id, f"!t challenge {BOT_ID} chess white level 1", False)
    await watch_a.wait_for("practice against me at level 1", images=images + 1)
    await say(alice, room_id, "e4", False)
    await watch_a.wait_for("alice played e4", images=images + 2)
    answer = await watch_a.wait_for("tessera played", images=images + 3)
    img = Image.open(io.BytesIO(watch_a.images[-1]))
    if img.format != "PNG":
        fail(f"the bot's move came with a {img.format}, not a PNG board")
    await say(alice, room_id, "!t resign", False)
    await watch_a.wait_for("alice resigns")
    print(f"practice: {answer!r}", flush=True)


async def play_tournament(alice, bob, room_id, watch_a, watch_b):
    """A whole (two-player) knockout in the room: create, join, start, the final, the bracket."""
    await say(alice, room_id, "!t tournament create knockout chess casual name Matrix Cup", False)
    await watch_b.wait_for("Matrix Cup")
    await say(alice, room_id, "!t tournament join", False)
    await watch_a.wait_for("alice joins")
    await say(bob, room_id, "!t tournament join", False)
    await watch_a.wait_for("bob joins")
    await say(bob, room_id, "!t tournament start", False)
    refused = await watch_b.wait_for("only the organiser")
    await say(alice, room_id, "!t tournament start", False)
    paired = await watch_b.wait_for("round 1 of 1 is paired")
    if sorted(watch_b.mentions.get(paired, [])) != ["@alice:localhost", "@bob:localhost"]:
        fail(f"the pairing should mention both players, it mentions {watch_b.mentions.get(paired)}")
    game = paired.split("game #")[1].split(",")[0]
    black = paired.split(" (white) vs ")[1].split(" (black)")[0]
    loser = alice if black == "alice" else bob
    await say(loser, room_id, f"!t resign #{game}", False)
    over = await watch_a.wait_for("wins the knockout")
    images = len(watch_a.images)
    await say(alice, room_id, "!t tournament standings", False)
    await watch_a.wait_for("Matrix Cup (chess knockout)", images=images + 1)
    img = Image.open(io.BytesIO(watch_a.images[-1]))
    if img.format != "PNG" or img.size[0] < 200:
        fail(f"the bracket picture is {img.format} {img.size}")
    print(f"tournament: {refused!r}; {over!r}; bracket {img.size}", flush=True)


async def main():
    start_bot()
    alice = await player("alice", "alicepass")
    bob = await player("bob", "bobpass")
    try:
        await play_game(alice, bob, encrypted=False)
        await play_game(alice, bob, encrypted=True)
    finally:
        await alice.close()
        await bob.close()
        stop_bot()
    # Secrets stay out of the log, even at debug level: the password and the session's token.
    with open(os.environ["BOT_LOG"]) as f:
        log = f.read()
    tokens = []
    for dirpath, _, files in os.walk(os.environ["BOT_DATA"]):
        if "session.json" in files:
            with open(os.path.join(dirpath, "session.json")) as f:
                tokens.append(json.load(f)["access_token"])
    if not tokens or len(log) < 1000:
        fail(f"no session saved ({len(tokens)}) or no debug log ({len(log)} bytes) to check")
    for secret in ["botpass"] + tokens:
        if secret in log:
            fail("a secret is in the bot's log")
    print(f"bot log: {len(log)} bytes at debug level, no secret in it", flush=True)
    print("MATRIX E2E OK", flush=True)


asyncio.run(main())
