// Half Moon board: a game from the app, played along.  The entry screen takes the 20 cards
// the app shows (typed, or picked among the cards the server says are still possible);
// when a move uncovers a pile card the page asks which card appeared, beside that pile;
// beside the table: the winnable share, the fair hint and, at the end, the review.
// Every check is the server's: the page sends what was entered and draws the answer.
(function () {
  "use strict";

  const board = window.halfmoonBoard;
  const $ = (id) => document.getElementById(id);
  const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
  const PLACES = [];
  for (let i = 1; i <= 12; i++) PLACES.push("P" + i);
  for (let i = 1; i <= 8; i++) PLACES.push("R" + i);
  const ALL = [];
  for (const suit of "cdhs") {
    for (const rank of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]) ALL.push(rank + suit);
  }
  let checkGen = 0;
  let revealFor = null; // the pile the picker was drawn for
  let correcting = null; // "Correct a card…" open: {place: null} while the card is chosen

  // a phone's keyboard would cover the picker: the field is not focused by itself there
  const touch = () => window.matchMedia("(pointer: coarse)").matches;
  const symbol = (card) => card.slice(0, -1) + SUITS[card.slice(-1).toLowerCase()];
  const isRed = (card) => "dh".includes(card.slice(-1).toLowerCase());

  // the cards by suit, a row of 13 each (7 and 6 on a phone: the CSS wraps them)
  function pickerButtons(el, possible, onPick) {
    const allowed = new Set(possible);
    const rows = [];
    for (let k = 0; k < ALL.length; k += 13) {
      const row = document.createElement("div");
      row.className = "suit";
      row.append(...ALL.slice(k, k + 13).map((card) => {
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = symbol(card);
        b.dataset.card = card;
        if (isRed(card)) b.className = "red";
        b.disabled = !allowed.has(card);
        b.addEventListener("click", () => onPick(card));
        return b;
      }));
      rows.push(row);
    }
    el.replaceChildren(...rows);
  }

  // --- the entry screen ----------------------------------------------------------------
  // The app's arc as the table draws it, each place named and filled as typed.
  let entry = null; // the last answer of the check
  let fixing = null; // the place tapped on the arc to fix its card (an index), or null
  const slots = {};

  // the words typed, each card's (the separators as the server reads them)
  const words = (text) => text.trim().split(/[\s,;]+/).filter((w) => w);

  function buildArc() {
    const arc = $("along-arc");
    const reserve = document.createElement("div");
    reserve.className = "arc-reserve";
    for (const place of PLACES) {
      const slot = document.createElement("div");
      slot.className = "slot";
      slot.dataset.place = place;
      const card = document.createElement("span");
      card.className = "slot-card";
      const name = document.createElement("span");
      name.className = "slot-name";
      name.textContent = place;
      slot.append(card, name);
      slots[place] = { slot, card };
      slot.addEventListener("click", () => fixSlot(PLACES.indexOf(place)));
      if (place.startsWith("P")) {
        const [row, col] = board.places[place];
        slot.style.gridRow = row;
        slot.style.gridColumn = col;
        arc.appendChild(slot);
      } else {
        reserve.appendChild(slot);
      }
    }
    arc.appendChild(reserve);
  }

  // Cancel keeps what was typed: the screen opens again with it.  While it is open the
  // page is about the entry only: nothing of the game behind it (its light, clock, hint,
  // analysis, moves) is shown, and its keys do nothing.
  let enteringOver = null; // the game open behind the entry screen
  function openEntry() {
    const g = board.game();
    enteringOver = g ? g.id : null;
    document.body.classList.add("entering");
    $("along-entry").hidden = false;
    $("table").hidden = true;
    checkEntry();
    if (!touch()) $("along-cards").focus();
  }

  function closeEntry() {
    enteringOver = null;
    document.body.classList.remove("entering");
    $("along-entry").hidden = true;
    $("table").hidden = false;
  }

  // a place of the arc tapped: its card is fixed in place (the picker replaces it); a
  // place not reached yet: nothing to fix
  function fixSlot(k) {
    const typed = words($("along-cards").value);
    fixing = k < typed.length && fixing !== k ? k : null;
    checkEntry();
  }

  function replaceWord(k, card) {
    const typed = words($("along-cards").value);
    typed[k] = card;
    $("along-cards").value = typed.join(" ") + " ";
  }

  async function checkEntry() {
    const gen = ++checkGen;
    const text = $("along-cards").value;
    const answer = await board.api("POST", "/api/along/check", { cards: text });
    if (gen !== checkGen) return; // a newer text was typed
    const error = $("along-error");
    error.hidden = answer.ok;
    error.textContent = answer.ok ? "" : answer.data.error;
    // a card that cannot be read: the arc and the count show the cards read before it,
    // its place marked, as the error says
    const a = answer.ok ? answer.data : answer.data.entry;
    if (!a) return;
    const bad = answer.ok ? null : a.next; // null: one card too many
    entry = a;
    const typed = words(text);
    if (fixing !== null && fixing >= typed.length) fixing = null;
    PLACES.forEach((place, k) => {
      const { slot, card } = slots[place];
      const c = a.cards[k];
      card.textContent = c ? symbol(c) : place === bad ? "✗"
        : place === a.next && a.typing ? a.typing + "…" : "";
      card.className = "slot-card" + (c && isRed(c) ? " red" : "");
      slot.classList.toggle("filled", !!c);
      slot.classList.toggle("next", place === a.next && !bad);
      slot.classList.toggle("typing", place === a.next && !!a.typing);
      slot.classList.toggle("bad", place === bad);
      slot.classList.toggle("fixing", k === fixing);
      slot.classList.toggle("tappable", k < typed.length);
    });
    $("along-count").textContent = !answer.ok
      ? (bad ? `${a.count} of 20 entered; card ${a.count + 1} (${bad}) is not taken: ` +
               "pick the card it is, or correct it in the text (below, why)."
        : `${a.typed} cards typed: the app shows 20. The first 20 are in their places; ` +
          `remove ${a.typed - 20}.`)
      : a.count === 20
        ? "All 20 places filled: check them against the app, then Play along."
        : `${a.count} of 20 entered: ${a.empty} ${a.empty.includes(" ") ? "are" : "is"} empty. ` +
          (a.typing ? `Typing ${a.next}: ${a.typing}…` : `Next: ${a.next}.`);
    // the place being fixed, or the card not taken: the picker replaces that card
    const at = fixing !== null ? fixing : bad ? a.count : null;
    if (at !== null) {
      $("along-count").textContent = (fixing !== null
        ? `Fixing ${PLACES[fixing]} (${typed[fixing]}): pick the card it is, or type it. `
        : "") + $("along-count").textContent;
    }
    // all 20 in: Play along comes next (or a place tapped to fix); a card not taken: the
    // picker stays, and a card picked takes its place
    const picker = $("along-picker");
    picker.hidden = at === null && !a.next;
    pickerButtons(picker, at !== null || a.next ? a.possible : [], (card) => {
      if (at !== null) {
        replaceWord(at, card);
        fixing = null;
        return checkEntry();
      }
      const input = $("along-cards");
      let text = input.value;
      if (entry && entry.typing) text = text.replace(/\S+$/, ""); // the card begun is replaced
      input.value = (text.trim() + " " + card).trim() + " ";
      checkEntry();
    });
  }

  function backspace() {
    const input = $("along-cards");
    input.value = input.value.trim().split(/[\s,;]+/).slice(0, -1).join(" ");
    checkEntry();
  }

  // Fewer than 20 cards, or one that cannot be: the server's reason is shown
  function startAlong() {
    board.send(async () => {
      const g = board.game();
      const settings = g ? g.settings : undefined;
      const answer = await board.api("POST", "/api/along", { cards: $("along-cards").value, settings });
      if (answer.ok) {
        closeEntry();
        $("along-cards").value = ""; // the next game from the app is another deal
        fixing = null;
        board.setState(answer.data);
        window.scrollTo(0, 0); // the table from its top row, as the app shows it
      } else {
        $("along-error").hidden = false;
        $("along-error").textContent = answer.data.error;
      }
    });
  }

  // On a phone the dialogs are sheets along the bottom of the screen: the table is brought
  // to the top of the screen and the sheet is no taller than the room left below it (what
  // does not fit scrolls inside it), so that it covers no card.
  const narrow = () => window.matchMedia("(max-width: 52rem)").matches;
  function fitSheet(sheet) {
    if (sheet.hidden || !narrow()) { sheet.style.maxHeight = ""; return; }
    const table = $("table");
    const top = table.getBoundingClientRect().top;
    if (Math.abs(top) > 1) window.scrollBy(0, top);
    const room = window.innerHeight - Math.max(table.getBoundingClientRect().bottom, 0);
    sheet.style.maxHeight = `${Math.max(Math.floor(room), 160)}px`;
  }

  // --- the state: unknown tops, the card that appeared ------------------------------------
  function drawAlong(s) {
    if (enteringOver !== null && s.id !== enteringOver) closeEntry(); // another game chosen
    const along = s.along;
    drawCorrect(s);
    document.body.classList.toggle("along", !!along);
    document.querySelector(".tools").hidden = !!along; // the deal is not known: no solver tools
    // the dead end's "New game" offers a new entry from the app, not a deal of the toolkit
    const again = $("banner-new");
    again.dataset.action = along ? "along-entry" : "new-random";
    again.textContent = along ? "New game from the app…" : "New game";
    for (const place of s.piles) {
      const { card } = board.spots[place.source];
      card.classList.toggle("unknown", !!place.unknown);
      if (place.unknown) card.setAttribute("aria-label", `${place.source}: a card to tell`);
    }
    const reveal = $("reveal");
    const waiting = along ? along.waiting : [];
    reveal.hidden = !waiting.length || !!correcting; // a correction first, then the card
    if (!waiting.length) { revealFor = null; return; }
    if (correcting) return;
    const pile = waiting[0];
    $("reveal-says").textContent = `Which card appeared on ${pile}?` +
      (waiting.length > 1 ? ` (then ${waiting.slice(1).join(", ")})` : "");
    pickerButtons($("reveal-picker"), along.possible, (card) => tell(pile, card));
    if (revealFor !== pile) {
      revealFor = pile;
      $("reveal-error").hidden = true;
      $("reveal-third").hidden = true;
      $("reveal-card").value = "";
      fitSheet(reveal);
      if (!touch()) $("reveal-card").focus();
    }
  }

  function tell(pile, card) {
    board.send(async () => {
      const g = board.game();
      const answer = await board.api("POST", `/api/games/${g.id}/reveal`, { pile, card, version: g.version });
      if (answer.ok || answer.status === 409) return board.answered(answer);
      $("reveal-error").hidden = false;
      $("reveal-error").textContent = answer.data.error;
      $("reveal-third").hidden = !answer.data.error.startsWith("a third");
    });
  }

  // --- correcting a card entered or told wrongly -------------------------------------------
  // "Correct a card…": the card is chosen (tapped on the table, or picked from the list of
  // the cards seen that are still on the table), then the card it really is, on the same
  // picker as the card that appeared; the server keeps the moves and asks for new shares.
  function openCorrect() {
    const s = board.game();
    if (!s || !s.along) return;
    correcting = { place: null };
    $("correct-error").hidden = true;
    drawAlong(s);
    // on a phone the button is below the advice: the table comes back in view, to tap in
    const table = $("table");
    if (table.getBoundingClientRect().top < 0) table.scrollIntoView({ block: "start" });
  }

  function closeCorrect() {
    correcting = null;
    const s = board.game();
    if (s) drawAlong(s); // the card that appeared is asked again, if a pile waits
  }

  const sourceOf = (place) => place.split(".")[0];

  function drawCorrect(s) {
    const dialog = $("correct");
    const info = s.along && s.along.correct;
    if (!info) correcting = null;
    dialog.hidden = !correcting;
    $("correct-button").setAttribute("aria-pressed", correcting ? "true" : "false");
    let chosen = correcting && correcting.place && info.places.find((p) => p.place === correcting.place);
    if (correcting && !chosen) correcting.place = null; // no longer on the table
    for (const [source, { card }] of Object.entries(board.spots)) {
      card.classList.toggle("correcting", !!chosen && sourceOf(chosen.place) === source);
    }
    if (!correcting) return;
    if (correcting.fitted !== (chosen ? chosen.place : "")) { // opened, or another card chosen
      correcting.fitted = chosen ? chosen.place : "";
      requestAnimationFrame(() => fitSheet(dialog)); // once its content is drawn
    }
    const select = $("correct-place");
    select.replaceChildren(new Option("Pick it here…", ""),
      ...info.places.map((p) => new Option(`${p.words}: ${p.symbol}`, p.place)));
    select.value = chosen ? chosen.place : "";
    dialog.classList.toggle("choosing", !chosen);
    $("correct-enter").hidden = !chosen;
    $("correct-picker").hidden = !chosen;
    if (!chosen) {
      $("correct-says").textContent = "Correct a card entered or told: tap it on the table, or " +
        "pick it here. A card already removed: undo the moves that removed it first.";
      return;
    }
    $("correct-says").textContent = `${chosen.words} is ${chosen.symbol} as ` +
      `${chosen.told ? "told" : "entered"}: which card is it?`;
    pickerButtons($("correct-picker"), info.possible.filter((c) => c !== chosen.card),
      (card) => sendCorrect(chosen.place, card));
    if (correcting.drawn !== chosen.place) {
      correcting.drawn = chosen.place;
      $("correct-card").value = "";
      if (!touch()) $("correct-card").focus();
    }
  }

  function choose(place) {
    correcting = { place: place || null };
    $("correct-error").hidden = true;
    drawAlong(board.game());
  }

  // a tap while the card to correct is chosen: that card (or why it cannot be)
  function correctTap(source) {
    if (!correcting) return false;
    const s = board.game();
    const pile = s.piles.find((p) => p.source === source);
    const place = pile && pile.count ? `${source}.${pile.count - 1}` : source;
    if (s.along.correct.places.some((p) => p.place === place)) return choose(place) || true;
    $("correct-error").hidden = false;
    $("correct-error").textContent = s.along.correct.refused[source] || `${source}: nothing to correct`;
    return true;
  }

  function sendCorrect(place, card) {
    board.send(async () => {
      const g = board.game();
      const answer = await board.api("POST", `/api/games/${g.id}/correct`, { place, card, version: g.version });
      if (answer.ok || answer.status === 409) {
        correcting = null;
        $("reveal-error").hidden = $("reveal-third").hidden = true; // told again from here
        return board.answered(answer);
      }
      $("correct-error").hidden = false;
      $("correct-error").textContent = answer.data.error;
    });
  }

  // --- the opinion: the share on the light, the review ------------------------------------
  function drawReview(o) {
    const share = o.along && o.along.share;
    $("light").style.setProperty("--share", share ? Math.round(100 * share.share) : 0);
    const panel = $("review-panel");
    const review = o.review;
    panel.hidden = !review;
    // at a dead end, the review's advice on the banner: undo back to the move it marks
    const advice = $("banner-advice");
    advice.hidden = !(review && review.undo);
    if (review && review.undo) {
      advice.textContent = `Undo ${review.undo} move${review.undo === 1 ? "" : "s"}: ` +
        `back to before move ${review.undo_to}`;
      advice.title = review.advice;
      advice.dataset.undo = review.undo;
      advice.dataset.undoTo = review.undo_to;
    }
    if (!review) return;
    $("review-title").textContent = o.light === "won" ? "Review: the game was won"
      : "Review: where the game was lost";
    $("review-says").textContent = review.text + (review.more ? " More layouts coming…" : "");
    $("review-says").dataset.kind = review.kind;
    $("review").replaceChildren(...review.moves.map((m) => {
      const li = document.createElement("li");
      const bar = document.createElement("span");
      bar.className = "bar";
      bar.style.width = `${Math.round(3 * m.after)}rem`;
      const pct = (x) => `${Math.round(100 * x)}\u00a0%`; // the "%" kept with its number
      li.append(bar, document.createTextNode(`${m.n}. ${m.cards}: ${pct(m.before)} → ${pct(m.after)}`));
      if (m.lost_here) {
        li.className = "lost";
        li.append(document.createTextNode(" — probably lost here"));
      }
      return li;
    }));
    board.cue($("review"));
  }

  // A tap refused while a pile waits for its card: the reason, on the dialog that asks for it
  function refused(text) {
    const reveal = $("reveal");
    if (reveal.hidden) return false;
    $("reveal-error").hidden = false;
    $("reveal-error").textContent = text;
    $("reveal-third").hidden = true;
    reveal.classList.remove("flash");
    void reveal.offsetWidth; // the flash runs again on each refusal
    reveal.classList.add("flash");
    return true;
  }

  buildArc();
  board.hooks.state.push(drawAlong);
  board.hooks.opinion.push(drawReview);
  board.hooks.error.push(refused);
  board.hooks.tap.push(correctTap);
  $("correct-button").addEventListener("click", () => (correcting ? closeCorrect() : openCorrect()));
  $("reveal-correct").addEventListener("click", openCorrect); // a third copy: one told was wrong
  $("correct-cancel").addEventListener("click", closeCorrect);
  $("correct-place").addEventListener("change", (e) => choose(e.target.value));
  const typedCorrection = () => correcting && correcting.place &&
    sendCorrect(correcting.place, $("correct-card").value);
  $("correct-ok").addEventListener("click", typedCorrection);
  $("correct-card").addEventListener("keydown", (e) => {
    if (e.key === "Enter") typedCorrection();
    else if (e.key === "Escape") closeCorrect();
  });
  // C opens it (a game from the app), Escape closes it
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, textarea, select") || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.body.classList.contains("entering")) return; // no game's keys there
    const g = board.game();
    if (e.key.toUpperCase() === "C" && g && g.along) {
      e.preventDefault();
      if (correcting) closeCorrect(); else openCorrect();
    } else if (e.key === "Escape" && correcting) closeCorrect();
  });
  $("along-button").addEventListener("click", openEntry);
  $("banner-advice").addEventListener("click", (e) => {
    const g = board.game();
    const to = Number(e.currentTarget.dataset.undoTo);
    // one undo after another, each on the state the last one left, down to the move
    for (let k = g ? g.status.moves : 0; k >= to; k--) board.undo();
  });
  document.addEventListener("click", (e) => {
    if (e.target.closest('[data-action="along-entry"]')) openEntry();
  });
  $("along-cancel").addEventListener("click", closeEntry);
  $("along-back").addEventListener("click", backspace);
  $("along-start").addEventListener("click", startAlong);
  $("along-cards").addEventListener("input", checkEntry);
  $("along-cards").addEventListener("keydown", (e) => {
    if (e.key === "Enter") startAlong();
  });
  $("reveal-ok").addEventListener("click", () => revealFor && tell(revealFor, $("reveal-card").value));
  $("reveal-card").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && revealFor) tell(revealFor, $("reveal-card").value);
  });
})();
