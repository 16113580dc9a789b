//! Pages on the web (issue 31) through the service: who may publish and share, the address given
//! and withdrawn, and what the page data holds — and does not (no channel, no note, no line).

use crate::talk;

use tessera_core::public::Publication;
use tessera_core::service::{Reply, Service};
use tessera_core::store::Store;
use tessera_store::SqliteStore;

use talk::T0;

struct Club {
    service: Service<SqliteStore>,
    now: std::cell::Cell<i64>,
}

impl Club {
    fn new() -> Club {
        Club { service: Service::new(SqliteStore::in_memory().unwrap()), now: T0.into() }
    }

    fn say_in(&self, channel: &str, who: &str, text: &str) -> Vec<Reply> {
        self.now.set(self.now.get() + 60);
        talk::say_at(&self.service, channel, who, who == "mod", text, self.now.get())
    }

    fn says(&self, who: &str, text: &str) -> String {
        let replies = self.say_in("club", who, text);
        assert!(!replies.is_empty(), "{who}: {text} got no reply");
        talk::text(&replies)
    }

    /// The address in a reply (`/t/...` or `/g/...`), and the token in it.
    fn token(reply: &str, kind: char) -> String {
        let at = reply.find(&format!("/{kind}/")).unwrap_or_else(|| panic!("no address in {reply}"));
        reply[at + 3..].chars().take_while(char::is_ascii_alphanumeric).collect()
    }
}

#[test]
fn only_the_organiser_or_a_moderator_publishes_and_the_address_dies_with_unpublish() {
    let club = Club::new();
    let created = club.says("org", "!t tournament create swiss chess rounds 3 name Spring <b>Cup</b>");
    assert!(created.contains("Tournament t1"), "{created}");
    let refused = club.says("bob", "!t tournament publish");
    assert!(refused.contains("only the organiser"), "{refused}");
    let published = club.says("org", "!t tournament publish");
    let token = Club::token(&published, 't');
    assert_eq!(token.len(), 26, "{published}");
    assert!(published.contains("web_base_url"), "no base address set, and the reply says so: {published}");
    assert_eq!(club.service.publication(&token).unwrap(), Some(Publication::Tournament(1)));
    // Published again: the same address.
    let again = club.says("mod", "!t tournament publish t1");
    assert_eq!(Club::token(&again, 't'), token);
    let gone = club.says("org", "!t tournament unpublish");
    assert!(gone.contains("no web page any more"), "{gone}");
    assert_eq!(club.service.publication(&token).unwrap(), None);
    // A new address once published again, with the base address when one is set.
    let mut club = club;
    club.service.web_base_url = Some("https://chess.example.org/".into());
    let fresh = club.says("org", "!t tournament publish");
    assert!(fresh.contains("https://chess.example.org/t/"), "{fresh}");
    assert_ne!(Club::token(&fresh, 't'), token);
    // Malformed tokens are not even looked up.
    for bad in ["", "../etc", "a b", &"x".repeat(65), "<script>"] {
        assert_eq!(club.service.publication(bad).unwrap(), None, "{bad:?}");
    }
}

#[test]
fn a_player_shares_a_game_and_its_page_shows_no_channel_note_or_line() {
    let club = Club::new();
    club.says("alice", "!t challenge @bob chess white 3d");
    let started = club.says("bob", "!t accept");
    assert!(started.contains("Game #1"), "{started}");
    for mv in ["e4", "e5"] {
        let who = if mv == "e4" { "alice" } else { "bob" };
        club.says(who, mv);
    }
    club.say_in("dm-alice", "alice", "!t note #1 secret plan: Bc4 then Qh5");
    club.say_in("dm-bob", "bob", "!t conditional #1 Nf3 Nc6");
    let refused = club.says("carol", "!t share #1");
    assert!(refused.contains("only the players"), "{refused}");
    let shared = club.says("alice", "!t share #1");
    let token = Club::token(&shared, 'g');
    assert_eq!(club.service.publication(&token).unwrap(), Some(Publication::Game(1)));
    let page = club.service.public_game(1).unwrap().unwrap();
    assert_eq!((page.white.name.as_str(), page.black.name.as_str()), ("alice", "bob"));
    assert_eq!(page.len(), 2);
    assert_eq!(page.plies[0].label.as_deref(), Some("1."));
    assert_eq!(page.plies[0].text, "e4");
    assert_eq!(page.plies[1].label, None, "Black's reply follows White's move unnumbered");
    assert_eq!(page.to_move, Some(tessera_rules::Color::White));
    assert!(page.deadline.is_some() && page.days_per_move == Some(3));
    assert!(page.view(0).is_some() && page.view(2).is_some() && page.view(3).is_none());
    assert!(page.view(2).unwrap().last_move.len() >= 2, "the last move is marked");
    let everything = format!("{page:?}");
    for private in ["club", "secret plan", "Nc6", "dm-"] {
        assert!(!everything.contains(private), "the page data holds {private:?}: {everything}");
    }
    // A move changes the fingerprint; reading again does not.
    let before = page.fingerprint;
    assert_eq!(club.service.public_game(1).unwrap().unwrap().fingerprint, before);
    club.says("alice", "Nf3");
    let after = club.service.public_game(1).unwrap().unwrap();
    assert_ne!(after.fingerprint, before);
    // Bob's line answered at once: shown now that it is a move.
    assert_eq!(after.plies.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(), ["e4", "e5", "Nf3", "Nc6"]);
    let gone = club.says("bob", "!t unshare #1");
    assert!(gone.contains("no web page any more"), "{gone}");
    assert_eq!(club.service.publication(&token).unwrap(), None);
    assert!(club.service.public_game(99).unwrap().is_none());
}

#[test]
fn a_tournament_page_holds_standings_pairings_and_results_as_they_come() {
    let club = Club::new();
    club.says("org", "!t tournament create swiss chess rounds 2 3d");
    for p in ["a", "b", "c", "d", "e"] {
        club.says(p, "!t tournament join");
    }
    let open = club.service.public_tournament(1).unwrap();
    assert_eq!(open.next_round_at, None, "no start time was set");
    club.says("org", "!t tournament start");
    let started = club.now.get();
    let page = club.service.public_tournament(1).unwrap();
    // The round's slowest game runs out of time three days after its last move.
    assert_eq!(page.next_round_at, Some(started + 3 * 86_400));
    assert_eq!(page.snapshot.entries.len(), 5);
    assert_eq!(page.standings.lines.len(), 5);
    let round1: Vec<_> = page.pairings.iter().filter(|p| p.round == 1).collect();
    assert_eq!(round1.len(), 3, "two games and a bye: {round1:?}");
    assert_eq!(round1.iter().filter(|p| p.result == "bye").count(), 1);
    let game = round1.iter().find_map(|p| p.game).unwrap();
    assert!(round1.iter().any(|p| p.result == "*"), "games being played");
    let before = page.fingerprint;
    let set = club.says("org", &format!("!t tournament result #{game} 1-0 adjudicated"));
    assert!(set.contains("1-0"), "{set}");
    let after = club.service.public_tournament(1).unwrap();
    assert_ne!(after.fingerprint, before, "a result changes the page");
    let pairing = after.pairings.iter().find(|p| p.game == Some(game)).unwrap();
    assert_eq!(pairing.result, "1-0");
    let winner = after.standings.lines.iter().find(|l| l.player == pairing.white).unwrap();
    assert_eq!(winner.halves, 2);
    assert_eq!(after.name(pairing.white), club.service.public_game(game).unwrap().unwrap().white.name);
    // Where it is played is not even held by the page's data.
    let everything = format!("{after:?}");
    assert!(!everything.contains("club") && !everything.contains("\"local\""), "{everything}");
    let pgn = club.service.tournament_pgn(1).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 2, "both games: {pgn}");
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    let in_tournament = club.service.public_game(game).unwrap().unwrap();
    assert_eq!(in_tournament.tournament.as_ref().map(|t| t.2), Some(1));
    assert_eq!(in_tournament.ending.as_deref(), Some("White wins, set by the organiser (adjudicated)"));
}

#[test]
fn a_practice_game_is_private_and_an_organisers_reason_is_shown_cleaned() {
    let club = Club::new();
    club.service.set_bot_account(talk::PLATFORM, "tessera");
    let started = talk::text(&club.say_in("dm-alice", "alice", "!t challenge @tessera chess level 1"));
    assert!(started.contains("Game #1"), "{started}");
    let refused = talk::text(&club.say_in("dm-alice", "alice", "!t share #1"));
    assert!(refused.contains("practice game") && refused.contains("private"), "{refused}");
    assert_eq!(club.service.store().address_of(Publication::Game(1)).unwrap(), None);

    club.says("org", "!t tournament create round-robin chess");
    for p in ["a", "b", "c", "d"] {
        club.says(p, "!t tournament join");
    }
    club.says("org", "!t tournament start");
    let game = club.service.public_tournament(1).unwrap().pairings.iter().find_map(|p| p.game).unwrap();
    club.says("org", &format!("!t tournament result #{game} 1/2 agreed \u{202E}enohp yb\u{200B}"));
    let page = club.service.public_game(game).unwrap().unwrap();
    assert_eq!(page.ending.as_deref(), Some("Draw, set by the organiser (agreed enohp yb)"));
}
