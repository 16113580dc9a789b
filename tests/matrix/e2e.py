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

from nio import AsyncClient, AsyncClientConfig, MegolmEvent, RoomEncryptedFile, RoomEncryptedImage, RoomMessageFile, RoomMessageImage
from nio.crypto.attachments import decrypt_attachment
from PIL import Image

HS = os.environ.get("HS", "http://127.0.0.1:8008")
BOT_ID = "@tessera:localhost"
TIMEOUT = float(os.environ.get("STEP_TIMEOUT", "60"))


BOT = None
ADMIN = None


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
        self.events = []  # (body, content) of every text the bot sent, in order
        self.event_ids = {}  # body -> the id of the last event the bot sent with it
        self.image_relations = []  # the m.relates_to of each board picture, in order
        self.files = []  # (name, mimetype, bytes) of every file the bot sent
        self.infos = []  # (w, h, mimetype) announced with each picture
        client.add_event_callback(self.on_event, (object,))

    async def on_event(self, room, event):
        if room.room_id != self.room_id or getattr(event, "sender", None) != BOT_ID:
            return
        if isinstance(event, MegolmEvent):
            return  # not decrypted (yet)
        if isinstance(event, (RoomEncryptedFile, RoomMessageFile)):
            content = (event.source or {}).get("content", {})
            data = download(self.client, event.url)
            if isinstance(event, RoomEncryptedFile):
                data = decrypt_attachment(data, event.key["k"], event.hashes["sha256"], event.iv)
            self.files.append((event.body, content.get("info", {}).get("mimetype", ""), data))
        elif isinstance(event, (RoomEncryptedImage, RoomMessageImage)):
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
            self.image_relations.append((event.source or {}).get("content", {}).get("m.relates_to", {}))
            self.images.append(data)
        elif hasattr(event, "body"):
            self.texts.append(event.body)
            content = (event.source or {}).get("content", {})
            self.mentions[event.body] = content.get("m.mentions", {}).get("user_ids", [])
            self.events.append((event.body, content))
            self.event_ids[event.body] = event.event_id

    def content_of(self, text):
        """The content of the last event the bot sent whose body is `text`."""
        return next(c for b, c in reversed(self.events) if b == text)

    async def wait_for(self, needle, images=0, since=0):
        """The last text containing `needle` (among those from the `since`-th on)."""
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            found = [t for t in self.texts[since:] if needle in t]
            if found and len(self.images) >= images:
                return found[-1]
            await self.client.sync(timeout=1000)
            await keys(self.client)
        fail(f"no reply containing {needle!r} within {TIMEOUT}s; the bot said: {self.texts[-5:]}")


async def say(client, room_id, text, encrypted, html=None, relates_to=None):
    """Sends `text` (with `html`, in the thread or reply `relates_to` says); returns its event id."""
    await client.sync(timeout=500)
    await keys(client)
    content = {"msgtype": "m.text", "body": text}
    if html:
        content.update(format="org.matrix.custom.html", formatted_body=html)
    if relates_to:
        content["m.relates_to"] = relates_to
    resp = await client.room_send(room_id, "m.room.message", content, ignore_unverified_devices=True)
    if not getattr(resp, "event_id", None):
        fail(f"{client.user_id} could not send {text!r}: {resp}")
    return resp.event_id


def admin(method, path, body=None):
    """A call to Synapse's admin API as the homeserver's administrator."""
    req = urllib.request.Request(
        f"{HS}{path}", method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {ADMIN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"{}")


def rate_limited(user, limited):
    """Puts the homeserver's message rate limit on `user`, or lifts it (as the README tells operators
    to lift it for the bot)."""
    path = f"/_synapse/admin/v1/users/{user}/override_ratelimit"
    if limited:
        admin("DELETE", path)
    else:
        admin("POST", path, {"messages_per_second": 0, "burst_count": 0})


def admin_login():
    global ADMIN
    body = json.dumps({"type": "m.login.password", "identifier": {"type": "m.id.user", "user": "admin"}, "password": "adminpass"})
    req = urllib.request.Request(f"{HS}/_matrix/client/v3/login", data=body.encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        ADMIN = json.loads(r.read())["access_token"]


def synapse(action):
    """Stops the homeserver, or starts it again on the same database."""
    pid_file = os.path.join(os.environ["SYNAPSE_DIR"], "homeserver.pid")
    if action == "stop":
        with open(pid_file) as f:
            pid = int(f.read())
        os.kill(pid, 15)
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        fail("the homeserver did not stop")
    config = os.path.join(os.environ["SYNAPSE_DIR"], "homeserver.yaml")
    subprocess.run([os.environ["SYNAPSE_PY"], "-m", "synapse.app.homeserver", "-c", config, "--daemonize"], check=True)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{HS}/health", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    fail("the homeserver did not come back")


async def new_room(creator, invite, encrypted=False, name="tessera e2e"):
    """A room `creator` makes, inviting `invite`; returns its id once the bot has joined."""
    initial = [{"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}}] if encrypted else []
    room = await creator.room_create(invite=invite, initial_state=initial, name=name)
    await wait_for_member(creator, room.room_id, BOT_ID)
    return room.room_id


async def wait_for_member(client, room_id, user):
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        await client.sync(timeout=1000)
        r = client.rooms.get(room_id)
        if r and user in r.users:
            return
    fail(f"{user} did not join the room {room_id}")


async def play_game(alice, bob, encrypted):
    initial = [{"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}}] if encrypted else []
    room = await alice.room_create(invite=["@bob:localhost", BOT_ID], initial_state=initial, name="tessera e2e")
    room_id = room.room_id
    await bob.join(room_id)
    await wait_for_member(alice, room_id, BOT_ID)
    for c in (alice, bob):
        await c.sync(timeout=1000)
        await keys(c)
    watch_a, watch_b = Watcher(alice, room_id), Watcher(bob, room_id)
    if encrypted:
        command = await say(alice, room_id, "!t challenge @bob:localhost chess white", encrypted)
    else:
        # As Element sends a mention: the display name in the body, the ID only in a pill.
        pill = '<a href="https://matrix.to/#/@bob:localhost">bob</a>'
        command = await say(alice, room_id, "!t challenge bob chess white", encrypted, html=f"!t challenge {pill} chess white")
    challenge = await watch_b.wait_for("challenges bob")
    if watch_b.mentions.get(challenge) != ["@bob:localhost"]:
        fail(f"the challenge should mention bob (m.mentions), it mentions {watch_b.mentions.get(challenge)}")
    # A ping is m.text, answering the command it comes from.
    content = watch_b.content_of(challenge)
    if content.get("msgtype") != "m.text" or content.get("m.relates_to", {}).get("m.in_reply_to", {}).get("event_id") != command:
        fail(f"the challenge should be m.text replying to {command}: {content}")
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
        dm = await play_tournament(alice, bob, room_id, watch_a, watch_b)
        await play_practice(alice, room_id, watch_a)
        await secret_answer(alice, room_id, watch_a, dm)
        await conventions(alice, room_id, watch_a)
        await rate_limit(alice, room_id, watch_a)


async def play_practice(alice, room_id, watch_a):
    """A game against the bot itself: it starts at once, and the bot answers a move on its own
    (from its worker thread, through the notice inbox) with a board picture."""
    images = len(watch_a.images)
    await say(alice, room_id, f"!t challenge {BOT_ID} chess white level 1", False)
    await watch_a.wait_for("practice against me at level 1", images=images + 1)
    # The connection drops: the homeserver stops and comes back. The bot waits it out, keeps
    # running, and answers a move made after.
    synapse("stop")
    await asyncio.sleep(3)
    if BOT.poll() is not None:
        fail(f"the bot ended ({BOT.returncode}) when the homeserver went away")
    synapse("start")
    await say(alice, room_id, "e4", False)
    await watch_a.wait_for("alice played e4", images=images + 2)
    answer = await watch_a.wait_for("tessera played", images=images + 3)
    img = Image.open(io.BytesIO(watch_a.images[-1]))
    if img.format != "PNG":
        fail(f"the bot's move came with a {img.format}, not a PNG board")
    if BOT.poll() is not None:
        fail("the bot ended after the homeserver came back")
    await say(alice, room_id, "!t resign", False)
    await watch_a.wait_for("alice resigns")
    print(f"practice, across a homeserver restart: {answer!r}", flush=True)


async def conventions(alice, room_id, watch_a):
    """Answers to commands are m.notice where nobody is pinged, with escaped HTML beside the text as
    written; a command sent in a thread is answered in that thread, replying to it."""
    root = await say(alice, room_id, "a thread about nothing", False)
    thread = {"rel_type": "m.thread", "event_id": root, "is_falling_back": True, "m.in_reply_to": {"event_id": root}}
    command = await say(alice, room_id, "!t <b>zz</b>", False, relates_to=thread)
    text = await watch_a.wait_for('"<b>zz</b>"')
    content = watch_a.content_of(text)
    relation = content.get("m.relates_to", {})
    if relation.get("rel_type") != "m.thread" or relation.get("event_id") != root:
        fail(f"the answer to a command in a thread is not in that thread: {relation}")
    if relation.get("m.in_reply_to", {}).get("event_id") != command:
        fail(f"the answer in the thread does not reply to the command {command}: {relation}")
    if content.get("msgtype") != "m.notice" or content.get("m.mentions") != {}:
        fail(f"an answer that pings nobody is not an m.notice stating no mentions: {content}")
    html = content.get("formatted_body", "")
    if content.get("format") != "org.matrix.custom.html" or "&lt;b&gt;zz&lt;/b&gt;" not in html or "<b>" in html:
        fail(f"the name is not escaped in the HTML: {html!r}")
    if "<code>!t help</code>" not in html:
        fail(f"inline code is not <code> in the HTML: {html!r}")
    print(f"conventions: {text!r} in the thread, as {html!r}", flush=True)


async def rate_limit(alice, room_id, watch_a):
    """With the homeserver's message rate limit on the bot (0.5 a second after a burst of 5), eight
    quick commands are all answered, in order: the bot waits as the homeserver asks and tries again."""
    rate_limited(BOT_ID, True)
    try:
        words = [f"zz{i}" for i in range(8)]
        began = time.time()
        for word in words:
            await say(alice, room_id, f"!t {word}", False)
        await watch_a.wait_for('"zz7"')
        took = time.time() - began
        answered = [t.split('"')[1] for t in watch_a.texts if t.startswith('I don\'t know "zz') and "<" not in t]
        if answered[-len(words):] != words:
            fail(f"under the rate limit, answers are missing or out of order: {answered}")
        with open(os.environ["BOT_LOG"]) as f:
            if "M_LIMIT_EXCEEDED" not in f.read():
                fail("the bot never met the homeserver's rate limit: the test tests nothing")
    finally:
        rate_limited(BOT_ID, False)
    print(f"rate limit: {len(words)} answers in order in {took:.1f}s", flush=True)


async def unreadable(alice, bob):
    """Alice's client leaves the bot's device out of the room key (blacklists it): the bot cannot
    decrypt her messages, says so once, and not again for her second one, nor after a restart."""
    room_id = await new_room(alice, ["@bob:localhost", BOT_ID], encrypted=True, name="unreadable")
    await bob.join(room_id)
    await wait_for_member(alice, room_id, "@bob:localhost")
    for c in (alice, bob):
        await c.sync(timeout=1000)
        await keys(c)
    devices = list(alice.device_store.active_user_devices(BOT_ID))
    if not devices:
        fail("alice knows no device of the bot")
    for device in devices:
        alice.blacklist_device(device)
    watch_b = Watcher(bob, room_id)
    await say(alice, room_id, "!t zzhidden1", True)
    await say(alice, room_id, "!t zzhidden2", True)
    async def told_once(word, when):
        # Bob's message is readable; the room is answered in order, so his answer comes after the rest.
        await say(bob, room_id, f"!t {word}", True)
        await watch_b.wait_for(f'"{word}"')
        told = [t for t in watch_b.texts if "could not read a message from @alice:localhost" in t]
        if len(told) != 1:
            fail(f"{when} the bot should have said once that it could not read alice's messages, it said {len(told)}: {watch_b.texts}")
        return told[0]

    said = await told_once("zzbob", "after two unreadable messages")
    # Remembered across a restart: a third unreadable message is not announced again.
    stop_bot()
    start_bot()
    await say(alice, room_id, "!t zzhidden3", True)
    await told_once("zzbob2", "after a restart")
    if any("zzhidden" in t for t in watch_b.texts):
        fail("the bot answered a message it should not have been able to read")
    with open(os.environ["BOT_LOG"]) as f:
        log = f.read()
    if "could not decrypt" not in log or "zzhidden" in log:
        fail("the unreadable message is not logged, or its content is")
    print(f"unreadable: {said!r}", flush=True)


async def invites(alice, bob):
    """An invite from outside matrix_invites_from (bob; only alice is allowed) is declined, and the
    bot leaves a room everyone else left."""
    room = await bob.room_create(invite=[BOT_ID], name="not allowed")
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        await bob.sync(timeout=1000)
        state = await bob.room_get_state_event(room.room_id, "m.room.member", BOT_ID)
        if getattr(state, "content", {}).get("membership") == "leave":
            break
    else:
        fail("the bot did not decline bob's invite")
    room_id = await new_room(alice, [BOT_ID], name="soon empty")
    await alice.room_leave(room_id)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        members = admin("GET", f"/_synapse/admin/v1/rooms/{room_id}/members").get("members", [])
        if BOT_ID not in members:
            break
        await asyncio.sleep(0.5)
    else:
        fail("the bot stayed in a room everyone else left")
    print("invites: bob's declined; the empty room left", flush=True)


async def threads(alice, bob):
    """A room with `threads on`: a game's first message is its thread's root, and its later
    messages (moves written in the room or in the thread, boards) carry the m.thread relation to
    it; with two games in the room, a move written in a game's thread is that game's."""
    room_id = await new_room(alice, ["@bob:localhost", BOT_ID], name="threads")
    await bob.join(room_id)
    await wait_for_member(alice, room_id, "@bob:localhost")
    watch_a = Watcher(alice, room_id)
    await say(alice, room_id, "!t channel threads on", False)
    await watch_a.wait_for("Saved for this channel: threads on")

    async def begin():
        since, images = len(watch_a.texts), len(watch_a.images)
        await say(alice, room_id, "!t challenge @bob:localhost chess white", False)
        await watch_a.wait_for("challenges bob", since=since)
        await say(bob, room_id, "!t accept", False)
        begins = await watch_a.wait_for("begins", images=images + 1, since=since)
        # The thread's root: the game's first message, itself in no thread (no rel_type).
        if watch_a.content_of(begins).get("m.relates_to", {}).get("rel_type"):
            fail(f"the game's first message relates to another event: {watch_a.content_of(begins)}")
        return begins.split()[1], watch_a.event_ids[begins]

    def in_thread(text, root, what):
        relation = watch_a.content_of(text).get("m.relates_to", {})
        if relation.get("rel_type") != "m.thread" or relation.get("event_id") != root:
            fail(f"{what} is not in the game's thread {root}: {relation}")
        return relation

    game, root = await begin()
    # A move written in the room: answered in the game's thread, falling back to the root.
    images = len(watch_a.images)
    await say(alice, room_id, "e4", False)
    e4 = await watch_a.wait_for("alice played e4", images=images + 1)
    relation = in_thread(e4, root, "a move written in the room")
    if relation.get("is_falling_back") is not True or relation.get("m.in_reply_to", {}).get("event_id") != root:
        fail(f"a thread message should fall back to the root for clients without threads: {relation}")
    board = watch_a.image_relations[-1]
    if board.get("rel_type") != "m.thread" or board.get("event_id") != root:
        fail(f"the board is not in the game's thread: {board}")
    # A move written in the thread: answered there, replying to it.
    thread = {"rel_type": "m.thread", "event_id": root, "is_falling_back": True, "m.in_reply_to": {"event_id": root}}
    e5_command = await say(bob, room_id, "e5", False, relates_to=thread)
    e5 = await watch_a.wait_for("bob played e5", images=images + 2)
    relation = in_thread(e5, root, "a move written in the thread")
    if relation.get("m.in_reply_to", {}).get("event_id") != e5_command:
        fail(f"the answer in the thread does not reply to the move {e5_command}: {relation}")
    # A second game: alice has the move in both, and Nf3 fits both; in a thread it is that game's.
    second, root2 = await begin()
    if root2 == root:
        fail("two games share a thread")
    thread2 = dict(thread, event_id=root2, **{"m.in_reply_to": {"event_id": root2}})
    await say(alice, room_id, "Nf3", False, relates_to=thread2)
    nf3 = await watch_a.wait_for("alice played Nf3")
    in_thread(nf3, root2, "a move written in the second game's thread")
    if second not in nf3:
        fail(f"the move in the second game's thread was not played in game {second}: {nf3!r}")
    print(f"threads: games {game} and {second} in threads {root} and {root2}; {e4!r}, {e5!r}, {nf3!r}", flush=True)


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
    # Each player's own word of the round comes by direct message: alice accepts the bot's invite.
    dm = None
    deadline = time.time() + TIMEOUT
    while dm is None and time.time() < deadline:
        await alice.sync(timeout=1000)
        dm = next((r for r, room in alice.invited_rooms.items() if BOT_ID in room.users or BOT_ID in room.invited_users), None)
    if dm is None:
        fail("the bot invited alice to no direct room")
    await alice.join(dm)
    watch_dm = Watcher(alice, dm)
    private = await watch_dm.wait_for("has begun")
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
    # The export comes as a file after its text.
    files = len(watch_a.files)
    await say(alice, room_id, "!t tournament export", False)
    deadline = time.time() + TIMEOUT
    while len(watch_a.files) == files and time.time() < deadline:
        await alice.sync(timeout=1000)
    if len(watch_a.files) != files + 1:
        fail("the tournament's export came as no file")
    name, mimetype, data = watch_a.files[-1]
    if not name.endswith(".trf") or not mimetype.startswith("text/plain") or b"012 Matrix Cup" not in data:
        fail(f"the export is {name} ({mimetype}): {data[:80]!r}")
    print(f"tournament: {refused!r}; {over!r}; bracket {img.size}; privately {private!r}; {name} attached", flush=True)
    return dm


async def secret_answer(alice, room_id, watch_a, dm):
    """A question that names the opponent's winning answer goes to alice's direct messages; the room
    hears only that it did, in a notice replying to her move."""
    since = len(watch_a.texts)
    await say(alice, room_id, f"!t challenge {BOT_ID} hans38-postal white level 1", False)
    await watch_a.wait_for("practice against me", since=since)
    watch_dm = Watcher(alice, dm)
    since = len(watch_a.texts)
    command = await say(alice, room_id, "@@e4", False)
    said = await watch_a.wait_for("private answer", since=since)
    content = watch_a.content_of(said)
    if content.get("msgtype") != "m.notice" or content.get("m.relates_to", {}).get("m.in_reply_to", {}).get("event_id") != command:
        fail(f"the word of a private answer should be an m.notice replying to {command}: {content}")
    private = await watch_dm.wait_for("Not played yet")
    if any("Not played yet" in t or "can answer" in t for t in watch_a.texts):
        fail("the private answer was said in the room")
    await say(alice, room_id, "!t resign", False)
    await watch_a.wait_for("alice resigns", since=since)
    print(f"secret: {said!r} in the room; {private[:40]!r}… in the direct room", flush=True)


async def main():
    started = time.time()
    admin_login()
    # Lifted for the players and, as an operator would, for the bot; put back on the bot where tested.
    for user in ("@alice:localhost", "@bob:localhost", BOT_ID):
        rate_limited(user, False)
    start_bot()
    alice = await player("alice", "alicepass")
    bob = await player("bob", "bobpass")
    try:
        await play_game(alice, bob, encrypted=False)
        await play_game(alice, bob, encrypted=True)
        await unreadable(alice, bob)
        await invites(alice, bob)
        await threads(alice, bob)
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
    print(f"the whole run took {time.time() - started:.0f}s", flush=True)
    print("MATRIX E2E OK", flush=True)


asyncio.run(main())
