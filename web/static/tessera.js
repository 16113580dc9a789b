// Tessera's pages: stepping through a game (the step buttons, the move links, the arrow keys)
// and live updates. The pages work without it: every ply and every page of a list is a link.
(function () {
  'use strict';

  function main() { return document.getElementById('main'); }

  // The game page's move list holds the ply shown and how many there are.
  function game() {
    var list = document.getElementById('moves');
    if (!list) return null;
    return { list: list, ply: Number(list.dataset.ply), plies: Number(list.dataset.plies) };
  }

  // Keeps `el` in sight inside its scrolling list, without scrolling the page.
  function reveal(el) {
    var box = el.closest('.movelist');
    if (!box) return;
    var top = el.offsetTop - box.offsetTop;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (top + el.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = top + el.offsetHeight - box.clientHeight;
  }

  // Shows the board after `ply` plies: the picture, the move marked, the step links, the address.
  function show(ply) {
    var g = game();
    if (!g) return;
    ply = Math.max(0, Math.min(g.plies, ply));
    g.list.dataset.ply = String(ply);
    var title = 'Start';
    g.list.querySelectorAll('a.move').forEach(function (a) {
      var here = Number(a.dataset.ply) === ply;
      a.classList.toggle('current', here);
      if (here) {
        a.setAttribute('aria-current', 'step');
        title = a.title;
        reveal(a);
      } else {
        a.removeAttribute('aria-current');
      }
    });
    var board = document.getElementById('board');
    if (board) {
      board.src = board.dataset.base + ply + '.png';
      board.alt = 'The board after ' + (ply === 0 ? 'no moves' : title);
    }
    var caption = document.getElementById('caption');
    if (caption) caption.textContent = title;
    var targets = { first: 0, prev: Math.max(0, ply - 1), next: Math.min(g.plies, ply + 1), last: g.plies };
    document.querySelectorAll('.steps a.step').forEach(function (a) {
      var to = targets[a.getAttribute('rel')];
      if (to === undefined) return;
      a.dataset.ply = String(to);
      a.href = location.pathname + '?ply=' + to;
      if (to === ply) a.setAttribute('aria-disabled', 'true');
      else a.removeAttribute('aria-disabled');
    });
    history.replaceState(null, '', location.pathname + '?ply=' + ply);
  }

  document.addEventListener('click', function (e) {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    var a = e.target.closest && e.target.closest('a[data-ply]');
    if (!a || !game()) return;
    e.preventDefault();
    show(Number(a.dataset.ply));
  });

  document.addEventListener('keydown', function (e) {
    var g = game();
    if (!g || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var to = { ArrowLeft: g.ply - 1, ArrowRight: g.ply + 1, Home: 0, End: g.plies }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    show(to);
  });

  // Live updates: the server sends the page's fingerprint when it connects and whenever it
  // changes; a page that differs fetches itself again and swaps its main part.
  var fetching = false;
  var again = false;
  function refresh() {
    if (fetching) { again = true; return; }
    fetching = true;
    var g = game();
    // At the last move the page follows the game; elsewhere it keeps the ply shown.
    var following = g && g.ply === g.plies;
    var url = following ? location.pathname : location.pathname + location.search;
    fetch(url, { cache: 'no-store', credentials: 'omit' })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); })
      .then(function (text) {
        var fresh = new DOMParser().parseFromString(text, 'text/html').getElementById('main');
        var old = main();
        if (!fresh || !old) return;
        old.replaceWith(fresh);
        var n = game();
        if (following && n) show(n.plies);
      })
      .catch(function () { /* the next event tries again */ })
      .then(function () {
        fetching = false;
        if (again) { again = false; refresh(); }
      });
  }

  var retry = 1000;
  function connect() {
    var m = main();
    if (!m || !m.dataset.events || !window.EventSource) return;
    var source = new EventSource(m.dataset.events);
    source.onmessage = function (e) {
      retry = 1000;
      var now = main();
      if (now && e.data !== now.dataset.fingerprint) refresh();
    };
    source.onerror = function () {
      // The browser reconnects by itself after a drop; a refusal (503, 429) closes the source,
      // and then we try again ourselves, less and less often.
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(connect, retry);
        retry = Math.min(retry * 2, 60000);
      }
    };
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', connect);
  else connect();
})();
