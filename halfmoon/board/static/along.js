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

  const symbol = (card) => card.slice(0, -1) + SUITS[card.slice(-1).toLowerCase()];
  const isRed = (card) => "dh".includes(card.slice(-1).toLowerCase());

  function pickerButtons(el, possible, onPick) {
    const allowed = new Set(possible);
    el.replaceChildren(...ALL.map((card) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = symbol(card);
      b.dataset.card = card;
      if (isRed(card)) b.className = "red";
      b.disabled = !allowed.has(card);
      b.addEventListener("click", () => onPick(card));
      return b;
    }));
  }

  // --- the entry screen ----------------------------------------------------------------
  function openEntry() {
    $("along-entry").hidden = false;
    $("table").hidden = true;
    $("along-cards").value = "";
    checkEntry();
    $("along-cards").focus();
  }

  function closeEntry() {
    $("along-entry").hidden = true;
    $("table").hidden = false;
  }

  async function checkEntry() {
    const gen = ++checkGen;
    const text = $("along-cards").value;
    const answer = await board.api("POST", "/api/along/check", { cards: text });
    if (gen !== checkGen) return; // a newer text was typed
    const error = $("along-error");
    error.hidden = answer.ok;
    error.textContent = answer.ok ? "" : answer.data.error;
    if (!answer.ok) { $("along-start").disabled = true; return; }
    const a = answer.data;
    $("along-slots").replaceChildren(...PLACES.map((place, k) => {
      const li = document.createElement("li");
      li.dataset.place = place;
      const card = a.cards[k];
      li.append(document.createTextNode(place + " "));
      if (card) {
        const span = document.createElement("span");
        span.textContent = symbol(card);
        if (isRed(card)) span.className = "red";
        li.append(span);
      }
      if (place === a.next) li.className = "next";
      return li;
    }));
    pickerButtons($("along-picker"), a.next ? a.possible : [], (card) => {
      const input = $("along-cards");
      input.value = (input.value.trim() + " " + card).trim();
      checkEntry();
    });
    $("along-start").disabled = a.count !== 20;
  }

  function backspace() {
    const input = $("along-cards");
    input.value = input.value.trim().split(/[\s,;]+/).slice(0, -1).join(" ");
    checkEntry();
  }

  function startAlong() {
    board.send(async () => {
      const g = board.game();
      const settings = g ? g.settings : undefined;
      const answer = await board.api("POST", "/api/along", { cards: $("along-cards").value, settings });
      if (answer.ok) {
        closeEntry();
        board.setState(answer.data);
      } else {
        $("along-error").hidden = false;
        $("along-error").textContent = answer.data.error;
      }
    });
  }

  // --- the state: unknown tops, the card that appeared ------------------------------------
  function drawAlong(s) {
    const along = s.along;
    document.body.classList.toggle("along", !!along);
    document.querySelector(".tools").hidden = !!along; // the deal is not known: no solver tools
    for (const place of s.piles) {
      const { card } = board.spots[place.source];
      card.classList.toggle("unknown", !!place.unknown);
      if (place.unknown) card.setAttribute("aria-label", `${place.source}: a card to tell`);
    }
    const reveal = $("reveal");
    const waiting = along ? along.waiting : [];
    reveal.hidden = !waiting.length;
    if (!waiting.length) { revealFor = null; return; }
    const pile = waiting[0];
    $("reveal-says").textContent = `Which card appeared on ${pile}?` +
      (waiting.length > 1 ? ` (then ${waiting.slice(1).join(", ")})` : "");
    pickerButtons($("reveal-picker"), along.possible, (card) => tell(pile, card));
    placeReveal(pile);
    if (revealFor !== pile) {
      revealFor = pile;
      $("reveal-error").hidden = true;
      $("reveal-card").value = "";
      $("reveal-card").focus();
    }
  }

  // beside the waiting pile, inside the table
  function placeReveal(pile) {
    const reveal = $("reveal");
    const spot = board.spots[pile].card.parentElement;
    const table = $("table");
    let left = spot.offsetLeft + spot.offsetWidth + 8;
    if (left + reveal.offsetWidth > table.clientWidth) left = Math.max(4, spot.offsetLeft - reveal.offsetWidth - 8);
    let top = spot.offsetTop;
    if (top + reveal.offsetHeight > table.clientHeight) top = Math.max(4, table.clientHeight - reveal.offsetHeight - 4);
    reveal.style.left = left + "px";
    reveal.style.top = top + "px";
  }

  function tell(pile, card) {
    board.send(async () => {
      const g = board.game();
      const answer = await board.api("POST", `/api/games/${g.id}/reveal`, { pile, card, version: g.version });
      if (answer.ok || answer.status === 409) return board.answered(answer);
      $("reveal-error").hidden = false;
      $("reveal-error").textContent = answer.data.error;
    });
  }

  // --- the opinion: the share on the light, the review ------------------------------------
  function drawReview(o) {
    const share = o.along && o.along.share;
    $("light").style.setProperty("--share", share ? Math.round(100 * share.share) : 0);
    const panel = $("review-panel");
    const review = o.review;
    panel.hidden = !review;
    if (!review) return;
    $("review-says").textContent = review.text + (review.more ? " More layouts coming…" : "");
    $("review-says").dataset.kind = review.kind;
    $("review").replaceChildren(...review.moves.map((m) => {
      const li = document.createElement("li");
      const bar = document.createElement("span");
      bar.className = "bar";
      bar.style.width = `${Math.round(3 * m.after)}rem`;
      const pct = (x) => `${Math.round(100 * x)} %`;
      li.append(bar, document.createTextNode(`${m.n}. ${m.cards}: ${pct(m.before)} → ${pct(m.after)}`));
      if (m.lost_here) {
        li.className = "lost";
        li.append(document.createTextNode(" — probably lost here"));
      }
      return li;
    }));
  }

  board.hooks.state.push(drawAlong);
  board.hooks.opinion.push(drawReview);
  $("along-button").addEventListener("click", openEntry);
  $("along-cancel").addEventListener("click", closeEntry);
  $("along-back").addEventListener("click", backspace);
  $("along-start").addEventListener("click", startAlong);
  $("along-cards").addEventListener("input", checkEntry);
  $("along-cards").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !$("along-start").disabled) startAlong();
  });
  $("reveal-ok").addEventListener("click", () => revealFor && tell(revealFor, $("reveal-card").value));
  $("reveal-card").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && revealFor) tell(revealFor, $("reveal-card").value);
  });
})();
