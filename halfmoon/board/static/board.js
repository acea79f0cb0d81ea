// Half Moon board.  The page holds no rules: it sends taps (P5, R3) to the server's
// reference engine and draws the state that comes back.  The solver's opinion arrives
// on a long-polled request; an answer for another position than the one drawn is dropped.
(function () {
  "use strict";

  // Where each pile sits on the 7 x 4 grid of the table: [row, column], from 1.
  const PILE_PLACES = {
    P1: [4, 1], P2: [3, 1], P3: [2, 1],
    P4: [1, 1], P5: [1, 2], P6: [1, 3], P7: [1, 4], P8: [1, 5], P9: [1, 6], P10: [1, 7],
    P11: [2, 7], P12: [3, 7],
  };
  const WAIT = 20; // seconds an opinion request may wait for news

  const $ = (id) => document.getElementById(id);
  const ui = { hint: false, line: false };
  let game = null; // the last state drawn
  let opinion = null; // the last opinion drawn (for game.position)
  let receivedAt = 0;
  let since = "";
  let pollGen = 0;
  let pollAbort = null;
  let queue = Promise.resolve(); // taps and actions are sent one after another
  let typed = "";
  let typedTimer = null;
  let lost = false; // the last request found no server: the next answer says it is back
  let noticeTimer = null;
  const spots = {};
  // drawn after the board's own (along.js); an error hook returns true when it showed it,
  // a tap hook when it took the tap (a card chosen to be corrected)
  const hooks = { state: [], opinion: [], error: [], tap: [] };

  // --- the table ---------------------------------------------------------------
  function buildTable() {
    const table = $("table");
    for (const [source, [row, col]] of Object.entries(PILE_PLACES)) {
      const spot = makeSpot(source);
      spot.style.gridRow = row;
      spot.style.gridColumn = col;
      table.appendChild(spot);
    }
    const reserve = $("reserve");
    for (let r = 1; r <= 8; r++) reserve.appendChild(makeSpot("R" + r));
  }

  function makeSpot(source) {
    const spot = document.createElement("div");
    spot.className = "spot";
    const card = document.createElement("button");
    card.type = "button";
    card.className = "card empty";
    card.dataset.source = source;
    card.id = "card-" + source;
    card.addEventListener("click", () => tap(source));
    const label = document.createElement("div");
    label.className = "label";
    label.id = "label-" + source;
    label.textContent = source;
    spot.append(card, label);
    spots[source] = { card, label };
    return spot;
  }

  function drawState(s) {
    const selected = new Set(s.selection);
    const dimmed = new Set(s.dimmed);
    for (const place of s.piles.concat(s.reserve)) {
      const { card, label } = spots[place.source];
      const c = place.card;
      card.replaceChildren();
      card.className = "card";
      if (c) {
        const rank = document.createElement("span");
        rank.className = "rank";
        rank.textContent = c.rank;
        const suit = document.createElement("span");
        suit.className = "suit";
        suit.textContent = c.suit;
        card.append(rank, suit);
        if (c.red) card.classList.add("red");
        card.setAttribute("aria-label", `${place.source}: ${c.text}, ${place.count} card${place.count === 1 ? "" : "s"}`);
        card.dataset.card = c.text;
      } else {
        card.classList.add("empty");
        card.setAttribute("aria-label", `${place.source}: empty`);
        card.dataset.card = "";
      }
      card.classList.toggle("selected", selected.has(place.source));
      card.classList.toggle("dimmed", dimmed.has(place.source));
      card.setAttribute("aria-pressed", selected.has(place.source) ? "true" : "false");
      label.textContent = `${place.source.startsWith("P") ? place.source.slice(1) : place.source}:${place.count}`;
    }
    $("score").textContent = s.status.score;
    $("moves").textContent = s.status.moves;
    $("code").textContent = s.status.code || "layout";
    $("code").title = $("code").textContent; // whole, when the line is too narrow for it
    drawLevel(s.level);
    drawTime();
    const msg = $("message");
    msg.hidden = !s.message;
    msg.textContent = s.message || "";
    $("undo").disabled = !s.can_undo;
    $("move-errors").checked = s.settings.move_errors;
    $("placement").checked = s.settings.placement_assistance;
    const banner = $("banner");
    banner.hidden = !s.over;
    banner.className = "banner" + (s.over === "won" ? " won" : s.over ? " dead" : "");
    $("announcement").textContent = s.announcement || "";
    hooks.state.forEach((f) => f(s));
  }

  function drawTime() {
    if (!game) return;
    let secs = game.status.seconds;
    if (!game.over) secs += Math.floor((Date.now() - receivedAt) / 1000);
    $("time").textContent = `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
  }

  // --- the opinion ---------------------------------------------------------------
  // a known deal's level: in the state, and in the opinion once a solver process has
  // answered it (a moment after the cards are drawn)
  function drawLevel(level) {
    $("level").textContent = level ? `Level: ${level}` : "";
    $("level").hidden = !level;
  }

  function drawOpinion(o) {
    opinion = o;
    if ("level" in o) drawLevel(o.level);
    const light = $("light");
    light.dataset.light = o.light;
    $("says").textContent = o.says;

    const list = $("movelist");
    list.replaceChildren(...o.moves.map((m, i) => {
      const li = document.createElement("li");
      const n = document.createElement("span"); // the number drawn whole, however many moves
      n.className = "n";
      n.textContent = `${i + 1}.`;
      li.append(n);
      const dot = document.createElement("span");
      dot.className = "v " + m.after;
      dot.title = m.after === "win" ? "winnable after it" : m.after === "loss" ? "lost after it" : m.after;
      li.append(dot, document.createTextNode(m.cards));
      if (m.mark) {
        const mark = document.createElement("span");
        mark.className = "blunder";
        mark.textContent = m.mark;
        mark.title = m.mark_title || "this move lost the win";
        li.append(mark);
      }
      return li;
    }));
    list.scrollTop = list.scrollHeight;
    cue(list);

    const hinted = new Set();
    $("hint-button").setAttribute("aria-pressed", ui.hint ? "true" : "false");
    const hint = $("hint");
    hint.hidden = !(ui.hint && o.hint);
    // while the fair hint is shown, the peeking hint's and the line's outlines are not:
    // one recommendation on the table at a time
    // (a provisional answer outlines nothing: its move is not settled yet)
    const fairShown = !!(o.fair && ["move", "provisional", "stopped", "none"].includes(o.fair.kind));
    if (fairShown) o.fair.sources.forEach((s) => hinted.add(s)); // the recommended move
    if (ui.hint && o.hint) {
      hint.textContent = o.hint.text;
      hint.dataset.kind = o.hint.kind;
      if (!fairShown) o.hint.sources.forEach((s) => hinted.add(s));
    }

    $("line-panel").hidden = !ui.line;
    $("line-button").setAttribute("aria-pressed", ui.line ? "true" : "false");
    if (ui.line) {
      const steps = o.line || [];
      $("line").replaceChildren(...steps.map((step) => {
        const li = document.createElement("li");
        li.textContent = step.cards;
        return li;
      }));
      $("line-note").textContent = o.line === null
        ? (o.light === "loss" ? "No winning line: the position is lost."
          : o.light === "unresolved" ? "Not known within the solver's budget." : "Thinking…")
        : steps.length ? `${steps.length} moves to clear the table.` : "The game is won.";
      if (steps.length && !fairShown) steps[0].sources.forEach((s) => hinted.add(s));
    }

    for (const [source, { card }] of Object.entries(spots)) {
      card.classList.toggle("hinted", hinted.has(source));
      const old = card.querySelector(".mark");
      if (old) old.remove();
    }
    const panel = $("analysis-panel");
    panel.hidden = !o.analysis;
    if (o.analysis) {
      $("analysis").replaceChildren(...o.analysis.map((a) => {
        const li = document.createElement("li");
        const dot = document.createElement("span");
        dot.className = "v " + a.verdict;
        const says = a.verdict === "win" ? "keeps the win" : a.verdict === "loss" ? "loses"
          : a.verdict === "unresolved" ? "not known" : "…";
        li.append(dot, document.createTextNode(`${a.cards}: ${says}`));
        li.dataset.verdict = a.verdict;
        return li;
      }));
      if (!o.analysis.length) $("analysis").textContent = "No legal move.";
      markCards(o.analysis);
      cue($("analysis"));
    }
    drawFair(o.fair);
    hooks.opinion.forEach((f) => f(o));
    // the board's sentences: each "%" kept with its number (a no-break space)
    for (const id of ["says", "hint", "fair-says", "fair-gap", "fair-stopped", "review-says"]) {
      keepPercent($(id));
    }
  }

  function keepPercent(el) {
    if (!el) return;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (/\d %/.test(n.nodeValue)) n.nodeValue = n.nodeValue.replace(/(\d) %/g, "$1\u00a0%");
    }
  }

  // The fair hint: what a player who sees only these cards can say (no peeking).  The
  // position and every move are measured on the same layouts (paired): the position's
  // share, each move's with its difference from the best's, and one recommended move
  // with the reason for it.
  function drawFair(f) {
    const panel = $("fair-panel");
    // a game over has nothing to advise: the light, the banner and the review say it
    panel.hidden = !f || f.kind === "won" || f.kind === "stuck";
    if (panel.hidden) { // nothing of another position's hint is left to read
      delete panel.dataset.positionWins;
      delete panel.dataset.samples;
      $("fair").replaceChildren();
      return;
    }
    const pct = (x) => Math.round(100 * x);
    const pts = (x) => (x < 0 ? "\u2212" : "+") + Math.abs(100 * x).toFixed(1);
    const says = $("fair-says");
    says.dataset.kind = f.kind;
    const shown = f.moves.find((m) => m.move === f.move);
    if (f.kind === "move" && f.why && shown) {
      const play = document.createElement("strong");
      play.textContent = `Play ${shown.cards}`;
      const why = document.createElement("span");
      why.className = "why";
      why.textContent = f.why.charAt(0).toUpperCase() + f.why.slice(1) + ".";
      says.replaceChildren(play, why);
    } else if (f.kind === "provisional") { // no "Play" until the answer is settled
      const leaning = document.createElement("span");
      leaning.className = "leaning";
      const cut = f.text.indexOf(", still counting");
      leaning.textContent = cut > 0 ? f.text.slice(0, cut) : f.text;
      const why = document.createElement("span");
      why.className = "why";
      why.textContent = cut > 0 ? "Still counting" + f.text.slice(cut + 16) + "." : "";
      says.replaceChildren(leaning, why);
    } else if (f.kind === "stopped") { // stopped by a limit before it was settled: no "Play"
      const leaning = document.createElement("span");
      leaning.className = "leaning";
      const cut = f.text.indexOf(": ");
      leaning.textContent = f.text.slice(0, cut);
      const why = document.createElement("span");
      why.className = "why";
      why.textContent = f.text.slice(cut + 2);
      says.replaceChildren(leaning, why);
    } else if (f.kind === "none") { // no layout won: no move to play; the undo instead
      const none = document.createElement("strong");
      none.textContent = f.undo ? f.text.slice(0, f.text.indexOf(" Undo ")) : f.text;
      says.replaceChildren(none);
    } else {
      says.textContent = f.text;
    }
    // what the player can do: at a stop, try again; at 0 %, undo to where it was winnable
    const act = $("fair-act");
    act.hidden = !(f.do || f.undo);
    if (f.do || f.undo) {
      const why = f.undo && (f.undo.share ? `Back to ${f.undo.why}`
        : f.undo.why.charAt(0).toUpperCase() + f.undo.why.slice(1));
      $("fair-do").textContent = (f.undo ? `${why}, and try another move there.` : f.do)
        .replace(/ %/g, "\u00a0%"); // the "%" kept with its number
      const again = $("fair-again");
      again.hidden = !f.do;
      const undo = $("fair-undo");
      undo.hidden = !f.undo;
      if (f.undo) {
        undo.textContent = f.undo.text;
        undo.dataset.undoTo = f.undo.undo_to;
      }
    }
    // why the position's share is above the best move's, when it is well above
    let gap = $("fair-gap");
    if (!gap) {
      gap = document.createElement("p");
      gap.id = "fair-gap";
      gap.className = "share-gap";
      says.after(gap);
    }
    gap.hidden = !f.gap;
    gap.textContent = f.gap ? f.gap.text : "";
    const position = $("fair-position");
    position.hidden = !f.position;
    if (f.position) {
      const p = f.position;
      position.textContent = `This position: ${pct(p.share)}\u00a0% of the same ${f.samples} layouts ` +
        `(95\u00a0%: ${pct(p.low)}–${pct(p.high)}\u00a0%), those where some move keeps the win.`;
      panel.dataset.positionWins = p.wins;
      panel.dataset.samples = f.samples;
    } else {
      delete panel.dataset.positionWins;
      delete panel.dataset.samples;
    }
    $("fair-note").textContent = f.note;
    const stop = f.stopped; // a stage stopped by a limit: said, never drawn as settled
    // (drawn as stopped, the advice itself says it)
    $("fair-stopped").hidden = !stop || f.kind === "stopped" || f.kind === "unknown";
    $("fair-stopped").textContent = stop ? stop.text + (stop.text.endsWith("…") ? "" : ".") : "";
    $("fair-stage").textContent = (f.samples ? `Shares of ${f.samples} sampled layouts` +
      (f.more ? ", more coming…" : stop ? `, stopped at ${stop.at} of ${stop.of}.` : ".")
      : "Sampling…") + " How they are measured";
    const paired = f.moves.length && f.moves.every((m) => "diff_high" in m);
    $("fair-against").hidden = !paired;
    $("fair-share-head").textContent = `Winnable after (of ${f.samples})`;
    $("fair").replaceChildren(...f.moves.map((m) => {
      const tr = document.createElement("tr");
      tr.dataset.move = m.move;
      tr.dataset.keeps = m.keeps;
      tr.dataset.sources = m.sources.join("+");
      if (m.move === f.move) tr.className = "chosen";
      else if (f.leaning && m.move === f.leaning) tr.className = "leaning";
      const cells = [m.cards, `${pct(m.share)}\u00a0% (${m.keeps})`];
      if (paired) {
        tr.dataset.diffHigh = m.diff_high;
        cells.push(m.move === f.best ? (f.settled ? "the best" : "leading so far")
          : `${pts(m.diff)} (${pts(m.diff_low)} to ${pts(m.diff_high)})` +
            (m.clearly_below ? ": clearly below" : ""));
        if (m.clearly_below) tr.classList.add("below");
      } else {
        cells[1] += ` ${pct(m.low)}–${pct(m.high)}\u00a0%`;
      }
      tr.append(...cells.map((text) => {
        const td = document.createElement("td");
        td.textContent = text;
        return td;
      }));
      tr.title = `winnable after it in ${m.keeps} of ${f.samples} layouts ` +
        `(${pct(m.share)}\u00a0%, 95\u00a0%: ${pct(m.low)}–${pct(m.high)}\u00a0%)` +
        (paired ? `; against the best, in points: ${pts(m.diff)}, 95 % paired interval ` +
          `${pts(m.diff_low)} to ${pts(m.diff_high)}` : "");
      if (f.fair_move && m.move === f.fair_move && f.fair_move !== f.move) {
        const own = document.createElement("span");
        own.className = "own";
        own.textContent = " (the fair player's own choice)";
        tr.firstChild.append(own);
      }
      if (m.tied) tr.dataset.tied = "true";
      return tr;
    }));
    cue($("fair-moves"));
  }

  // A card's mark: green if it is in a move that keeps the win, red if every move
  // with it loses, grey while some are not known.
  function markCards(moves) {
    const best = {};
    const rank = { win: 3, pending: 2, unresolved: 1, loss: 0 };
    for (const m of moves) {
      for (const s of m.sources) {
        if (!(s in best) || rank[m.verdict] > rank[best[s]]) best[s] = m.verdict;
      }
    }
    for (const [source, verdict] of Object.entries(best)) {
      const mark = document.createElement("span");
      mark.className = "mark " + verdict;
      mark.textContent = verdict === "win" ? "✓" : verdict === "loss" ? "✗" : "?";
      mark.title = verdict === "win" ? "in a move that keeps the win" : verdict === "loss" ? "every move with it loses" : "not known yet";
      spots[source].card.appendChild(mark);
    }
  }

  // --- talking to the server -----------------------------------------------------
  async function api(method, path, body, signal) {
    const init = { method, signal, headers: {} };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data = null;
    try { data = await response.json(); } catch (e) { data = { error: `answer ${response.status}` }; }
    return { ok: response.ok, status: response.status, data };
  }

  function setState(s, note) {
    if (game && s.id === game.id && s.version < game.version) return; // an older answer
    const moved = !game || s.id !== game.id || s.position !== game.position;
    const newGame = !game || s.id !== game.id;
    game = s;
    document.body.classList.remove("no-game"); // a game chosen
    receivedAt = Date.now();
    if (newGame) {
      history.replaceState(null, "", "#g=" + s.id);
      ui.line = false;
    }
    if (moved) ui.hint = false;
    drawState(s);
    $("typed").textContent = note || "";
    if (moved || newGame) {
      const pending = pendingOpinion(s, newGame);
      opinion = null;
      drawOpinion(pending);
      startPolling();
    } else if (opinion) {
      drawOpinion(opinion);
    }
  }

  function pendingOpinion(s, newGame) {
    return { position: s.position, light: "pending", says: "Thinking…",
             moves: opinion && !newGame ? opinion.moves.slice(0, s.status.moves) : [],
             hint: null, line: null, analysis: null, fair: null };
  }

  function startPolling() {
    pollGen += 1;
    if (pollAbort) pollAbort.abort();
    since = "";
    poll(pollGen);
  }

  async function poll(gen) {
    const abort = new AbortController();
    pollAbort = abort;
    while (gen === pollGen && game) {
      const asked = game;
      const query = `since=${since}&wait=${since ? WAIT : 0}&hint=${ui.hint ? 1 : 0}&line=${ui.line ? 1 : 0}`;
      let answer;
      try {
        answer = await api("GET", `/api/games/${asked.id}/opinion?${query}`, undefined, abort.signal);
      } catch (e) {
        if (gen !== pollGen) return;
        unreachable(); // the server is gone, for a moment or a restart
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (gen !== pollGen) return;
      if (answer.status === 404) { lost = false; notice(answer.data.error); return; } // gone: why
      if (reached()) { await refresh(); continue; } // back: the game as the server keeps it
      if (!answer.ok) {
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      const o = answer.data;
      since = o.tag;
      if (o.version > game.version) { await refresh(); continue; } // played in another tab
      if (o.position !== game.position) continue; // for another position: dropped
      drawOpinion(o);
    }
  }

  // A list taller than its box says how many of its lines are out of view, and where
  // (a scroll bar is not drawn on every screen: phones and some systems hide it)
  function cue(list) {
    let line = list.nextElementSibling;
    if (!line || !line.classList.contains("more")) {
      line = document.createElement("p");
      line.className = "more";
      line.setAttribute("aria-hidden", "true");
      list.after(line);
      list.addEventListener("scroll", () => cue(list), { passive: true });
    }
    const box = list.getBoundingClientRect();
    let above = 0, below = 0;
    // a list's items, or a scrolling box's table rows (the fair hint's moves)
    for (const li of list.querySelectorAll(":scope > li, tbody > tr")) {
      const r = li.getBoundingClientRect();
      if ((r.top + r.bottom) / 2 < box.top) above += 1;
      else if ((r.top + r.bottom) / 2 > box.bottom) below += 1;
    }
    const parts = [];
    if (above) parts.push(`↑ ${above} more above`);
    if (below) parts.push(`↓ ${below} more below`);
    line.textContent = parts.length ? parts.join(", ") + ": scroll the list" : "";
    line.hidden = !parts.length;
    list.classList.toggle("clipped", parts.length > 0);
  }

  // --- the server lost and found again (a restart keeps the games) ---------------------
  function notice(text, seconds) {
    const el = $("notice");
    clearTimeout(noticeTimer);
    el.textContent = text || "";
    el.hidden = !text;
    if (text && seconds) noticeTimer = setTimeout(() => notice(""), seconds * 1000);
  }

  function unreachable() {
    if (!lost) notice("The board cannot be reached: trying again…");
    lost = true;
  }

  function reached() {
    if (!lost) return false;
    lost = false;
    notice("Reconnected to the board.", 8);
    return true;
  }

  function refresh() {
    return send(async () => {
      const answer = await api("GET", `/api/games/${game.id}`);
      if (answer.ok) setState(answer.data);
    });
  }

  // One request at a time, each with the version of the state it was made on.
  function send(action) {
    queue = queue.then(action).catch((e) => {
      $("typed").textContent = `The board cannot be reached (${e.message}).`;
      unreachable();
    });
    return queue;
  }

  function answered(answer) {
    if (answer.ok) return setState(answer.data);
    if (answer.status === 409 && answer.data.state) {
      setState(answer.data.state);
      // nothing of the tap was done: the player sees why, and the game as it now is
      return notice("The game changed elsewhere (in another tab): nothing was done; this is " +
                    "where it stands now.", 10);
    }
    if (answer.status === 503 && answer.data.state) {
      // the board's file could not keep the change: not made, the game as it was
      setState(answer.data.state);
      return notice(answer.data.error);
    }
    if (!hooks.error.some((f) => f(answer.data.error))) $("typed").textContent = answer.data.error;
  }

  function tap(source) {
    if (hooks.tap.some((f) => f(source))) return;
    send(async () => {
      if (!game) return;
      answered(await api("POST", `/api/games/${game.id}/tap`, { source, version: game.version }));
    });
  }

  function undo() {
    send(async () => {
      if (!game) return;
      answered(await api("POST", `/api/games/${game.id}/undo`, { version: game.version }));
    });
  }

  function setting(name, value) {
    send(async () => answered(await api("POST", `/api/games/${game.id}/settings`, { [name]: value })));
  }

  function toggle(what) {
    ui[what] = !ui[what];
    if (opinion) drawOpinion(opinion);
    since = ""; // ask again with the new request
    startPolling();
  }

  function analyse() {
    send(async () => answered(await api("POST", `/api/games/${game.id}/analyse`, {})));
    since = "";
    startPolling();
  }

  function fairHint() {
    send(async () => answered(await api("POST", `/api/games/${game.id}/fair`, {})));
    since = "";
    startPolling();
  }

  function newGame(body, what) {
    const note = $("newgame-note");
    note.textContent = what ? `Finding ${what}…` : "";
    send(async () => {
      const settings = game ? game.settings : undefined;
      const answer = await api("POST", "/api/games", Object.assign({ settings }, body));
      if (answer.ok) {
        note.textContent = "";
        setState(answer.data);
      } else {
        note.textContent = answer.data.error;
      }
    });
  }

  async function start() {
    buildTable();
    const m = location.hash.match(/g=([A-Za-z0-9_-]+)/);
    let gone = null; // the game asked for is not kept: why
    if (m) {
      const answer = await api("GET", `/api/games/${m[1]}`);
      if (answer.ok) return setState(answer.data);
      if (answer.status === 404) gone = answer.data.error;
    }
    // the deal the board was started on, if any; else no game is made before the player
    // chooses one (a game from the app, or a deal of the toolkit)
    const begun = await api("GET", "/api/start");
    const open = !begun.ok || begun.data.deal;
    if (gone) notice(`${gone}. ${open ? "A new game is open." : "Choose a game."}`);
    if (open) return newGame({});
    document.body.classList.add("no-game");
  }

  // --- input: buttons, keys ---------------------------------------------------------
  document.addEventListener("click", (e) => {
    const el = e.target.closest("[data-action]");
    if (!el) return;
    const action = el.dataset.action;
    if (!game && !action.startsWith("new-")) return; // no game yet: only a new one
    if (action === "undo") undo();
    else if (action === "hint") toggle("hint");
    else if (action === "line") toggle("line");
    else if (action === "analyse") analyse();
    else if (action === "fair") fairHint();
    else if (action === "new-random") newGame({ pick: "random" });
    else if (action === "new-winnable") newGame({ pick: "winnable" }, "a winnable deal");
    else if (action === "new-hard") newGame({ pick: "hard" }, "a hard deal");
  });
  // at 0 %: one undo after another, each on the state the last one left, down to the move
  $("fair-undo").addEventListener("click", (e) => {
    const to = Number(e.currentTarget.dataset.undoTo);
    for (let k = game ? game.status.moves : 0; k >= to; k--) undo();
  });
  $("move-errors").addEventListener("change", (e) => setting("move_errors", e.target.checked));
  $("placement").addEventListener("change", (e) => setting("placement_assistance", e.target.checked));
  $("newgame").addEventListener("submit", (e) => {
    e.preventDefault();
    newGame({ deal: $("deal-input").value });
  });

  function flushTyped() {
    clearTimeout(typedTimer);
    const source = typed;
    typed = "";
    $("typed").textContent = "";
    if (/^[PR]\d{1,2}$/.test(source)) tap(source);
  }

  // P and R start a source; it is tapped as soon as it cannot go on (P1 may become
  // P10-P12: Enter, a pause or the next key taps it).
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea") || e.ctrlKey && e.key.toLowerCase() !== "z" || e.metaKey || e.altKey) return;
    if (document.body.classList.contains("entering")) return; // the entry screen: no game's keys
    if (!game) return; // no game chosen yet
    const key = e.key.toUpperCase();
    if (e.ctrlKey && key === "Z") { e.preventDefault(); undo(); return; }
    if (typed && /^\d$/.test(key)) {
      typed += key;
      e.preventDefault();
      if (typed.length === 3 || typed[0] === "R" || typed !== "P1") { flushTyped(); return; }
      $("typed").textContent = `typed ${typed} (Enter to tap)`;
      clearTimeout(typedTimer);
      typedTimer = setTimeout(flushTyped, 1200);
      return;
    }
    if (typed) flushTyped();
    if (key === "P" || key === "R") {
      typed = key;
      $("typed").textContent = `typed ${typed}`;
      e.preventDefault();
    } else if (key === "ENTER" || key === " ") {
      if (e.target.closest("button")) return;
    } else if (key === "ESCAPE") {
      typed = "";
      $("typed").textContent = "";
    } else if (key === "U" || key === "BACKSPACE") { e.preventDefault(); undo(); }
    else if (game && game.along && ["H", "A", "F", "S"].includes(key)) {
      // a game from the app: its deal is not known, so the solver's tools have no keys
    }
    else if (key === "H") toggle("hint");
    else if (key === "A") analyse();
    else if (key === "F") fairHint();
    else if (key === "S") toggle("line");
    else if (key === "N") { e.preventDefault(); $("deal-input").focus(); }
  });

  // what another script of the page may use (along.js: the game from the app)
  window.halfmoonBoard = { api, send, answered, setState, hooks, spots, places: PILE_PLACES,
                          undo, cue, game: () => game };

  setInterval(drawTime, 1000);
  start();
})();
