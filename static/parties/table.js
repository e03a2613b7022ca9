// The scorekeeper's entry: dice faces or quick buttons, "called it?", undo, and an outbox in
// localStorage so that no tap is lost to a dead connection or a reload. Each tap has an id
// made here; the server records a retried tap once.
//
// Nothing the server said about a tap is shown for a moment only: a refused, stale or held tap
// stays in the outbox (localStorage) with the server's words until the scorekeeper sends it
// again or dismisses it, and the outbox is drawn again from localStorage after every refresh
// of the live region (htmx swaps #live whole).
(function () {
  // The words in the page's language (strings.js, loaded by templates/parties/_js_strings.html);
  // in English on a page without them.
  const t = window.buncoT || ((key, english, values) => english.replace(/%\((\w+)\)s/g, (m, name) => (values || {})[name]));
  const tn = window.buncoTn || ((key, n, one, other, values) => t(key, n === 1 ? one : other, { ...values, count: n }));

  // What each state of a tap says. "sendable" states go out by themselves; the others wait for
  // the scorekeeper (an answer to "did they call it?", a resend, a dismissal).
  const WORDS = {
    pending: t("tap_pending", "sending…"),
    offline: t("tap_offline", "offline, sends when back"),
    busy: t("tap_busy", "server busy, will resend"),
    asking: t("tap_asking", "waiting for “did they call it?”"),
    held_back: t("tap_held_back", "held back (a tap before it was not saved): not sent"),
    paused: t("tap_paused", "paused, sends on resume"),
    saved: t("tap_saved", "saved"),
  };
  const SENDABLE = new Set(["pending", "offline", "busy"]);
  const UNSAVED = new Set(["pending", "offline", "busy", "asking"]);  // will change the table's version
  const STALE_QUESTION = t("tap_stale", "Another phone entered a roll here just now: is yours a different roll?");
  // "2 points: saved": a tap's label (a button's own words, or the dice) and what became of it.
  const says = (label, words) => t("tap_says", "%(tap)s: %(words)s", { tap: label, words });
  // Nobody reads a changed screen and begins a roll on it this quickly: a roll begun this soon
  // after the table changed was begun on what the screen showed before the change.
  const READ_GRACE_MS = 600;

  let sending = false;
  let retryDelay = 1000;
  let busyUntil = 0;  // the server said "busy, retry after": nothing goes before then
  const MAX_BUSY_WAIT = 30;  // seconds: the longest a busy answer is taken at its word
  let pendingFaces = [];
  let started = null;  // what the screen showed when the roll being entered was begun
  let lastSaved = null;  // the label of the last tap the server took, for the status line
  let shown = null;  // {round, version, bell, before: {version, bell}, changedAt}
  const ownVersions = new Set();  // "round:version" our own saved taps made

  function entry() { return document.getElementById("entry"); }
  // While the host has paused the game the server refuses taps: those made while this phone
  // knows it is paused wait in the outbox and go when the host resumes. A tap made before the
  // phone heard of the pause (offline, say) goes as it was made and is refused, whichever comes
  // first once back online, the pause's push or the send: the scorekeeper, who saw no pause,
  // decides whether it stands ("Send again").
  function paused() {
    const live = document.getElementById("live");
    return Boolean(live) && live.dataset.paused === "1";
  }
  function waitsForResume(item) {
    return Boolean(item.madePaused) && paused();
  }
  function tableEl() {
    const live = document.getElementById("live");
    return live && document.getElementById(`table-${live.dataset.tables}`);
  }
  function outboxKey() {
    const e = entry();
    return e ? e.dataset.outbox : `bunco-outbox-${document.body.dataset.party}-${document.body.dataset.tables}`;
  }
  function load() {
    try { return JSON.parse(localStorage.getItem(outboxKey()) || "[]"); } catch (e) { return []; }
  }
  function store(items) { localStorage.setItem(outboxKey(), JSON.stringify(items)); }
  function update(id, change) { store(load().map((i) => (i.id === id ? { ...i, ...change(i) } : i))); }
  function find(id) { return load().find((i) => i.id === id); }

  function uuid4() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  // --- What the screen shows, and when it last changed ---------------------------------

  function observeTable() {
    const table = tableEl();
    if (!table) return;
    const now = { round: table.dataset.round, version: Number(table.dataset.version), bell: table.dataset.bell === "1" ? "1" : "0" };
    if (!shown || shown.round !== now.round) {
      shown = { ...now, before: { version: now.version, bell: now.bell }, changedAt: -Infinity };
    } else if (shown.version !== now.version || shown.bell !== now.bell) {
      shown = { ...now, before: { version: shown.version, bell: shown.bell }, changedAt: performance.now() };
    }
  }

  function ours(round, version) {
    return ownVersions.has(`${round}:${version}`)
      || load().some((i) => UNSAVED.has(i.state) && i.fields.round === round && i.expects === version);
  }

  // The table as the scorekeeper saw it when they began this roll: the version shown then,
  // unless it had changed under their finger (by another phone) a moment before.
  function snapshot() {
    observeTable();
    if (!shown) return { version: 0, bell: "0", round: "" };
    const recent = performance.now() - shown.changedAt < READ_GRACE_MS;
    const seen = recent && !ours(shown.round, shown.version) ? shown.before : shown;
    return { version: seen.version, bell: seen.bell, round: shown.round };
  }
  function beginEntry() { if (!started) started = snapshot(); }
  function takeStart() { const s = started || snapshot(); started = null; return s; }

  // The version the next fact will be checked against: what the scorekeeper saw, or what our
  // own taps (saved, or queued ahead of this one) have made of it since.
  function nextSeen(base, round) {
    let seen = base;
    for (const key of ownVersions) {
      const [r, v] = key.split(":");
      if (r === round) seen = Math.max(seen, Number(v));
    }
    for (const i of load()) {
      if (UNSAVED.has(i.state) && i.fields.round === round && Number.isFinite(i.expects)) {
        seen = Math.max(seen, i.expects);
      }
    }
    return seen;
  }

  // --- What a tap not yet saved would score (shown in the score, so nobody taps it again) ---

  function rollPoints() {
    try { return JSON.parse(entry().dataset.rollPoints || "{}"); } catch (e) { return {}; }
  }
  function worth(fields) {
    const table = rollPoints();
    if (fields.outcome === "mini" && fields.face) return (table.same || {})[fields.face];
    if (fields.outcome) return (table.quick || {})[fields.outcome];
    const dice = (fields.dice || "").split(",").map(Number);
    if (!dice.length || dice.some((d) => !d)) return undefined;
    if (dice.every((d) => d === dice[0])) return (table.same || {})[dice[0]];
    const target = Number(entry().dataset.target);
    return (table.hits || [])[dice.filter((d) => d === target).length];
  }
  // The side that scores this roll: the side of the turn's seat now (each seat's side as the
  // table gives it), the seat moved on by every queued roll before it that passes the dice.
  function sideFor(fields) {
    const table = tableEl();
    if (!table || !table.dataset.seatSides) return null;
    const seatSides = table.dataset.seatSides.split(",").map(Number);
    let seat = Number(table.dataset.turnSeat);
    if (!seat) return null;
    for (const i of load()) {
      if (i.kind === "roll" && UNSAVED.has(i.state) && i.fields.round === fields.round && i.worth && !i.worth[1]) {
        seat = seat % seatSides.length + 1;
      }
    }
    return seatSides[seat - 1];
  }

  // --- The outbox --------------------------------------------------------------------

  function enqueue(kind, fields, label) {
    const e = entry();
    if (!e) return;
    const start = takeStart();
    const url = kind === "undo" ? e.dataset.undoUrl : e.dataset.rollUrl;
    // Behind a busy answer it waits with the one turned away, and goes with it.
    const state = Date.now() < busyUntil ? "busy" : "pending";
    const item = { id: uuid4(), kind, url, label, state, madePaused: paused(), fields: { ...fields } };
    item.fields.seen = String(nextSeen(start.version, start.round));
    item.expects = Number(item.fields.seen) + 1;
    if (kind !== "undo") {
      item.fields.tap_id = item.id;
      item.fields.round = start.round;  // a tap never lands in a later round
      item.fields.bell_seen = start.bell;
      item.worth = worth(item.fields);
      item.side = sideFor(item.fields);
    } else {
      item.fields.round = start.round;  // an undo queued in one round never undoes another's
    }
    const items = load();
    items.push(item);
    store(items);
    render();
    flush();
  }

  function button(action, id, text) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "button small";
    b.dataset.tapAction = action;
    b.dataset.tapId = id;
    b.textContent = text;
    return b;
  }

  function itemView(item) {
    const li = document.createElement("li");
    li.className = `tap ${item.state}`;
    li.dataset.tapId = item.id;
    const text = document.createElement("span");
    text.className = "tap-text";
    const buttons = [];
    if (item.state === "refused") {
      li.classList.add("error");
      // The server's words (its own sentence, in the server's language) follow, if any.
      text.textContent = t("tap_refused", "%(tap)s: not saved. %(message)s", { tap: item.label, message: item.message || "" }).trim();
      buttons.push(button("resend", item.id, t("send_again", "Send again")), button("dismiss", item.id, t("dismiss", "Dismiss")));
    } else if (item.state === "stale") {
      li.classList.add("error");
      text.textContent = says(item.label, STALE_QUESTION);
      buttons.push(button("resend", item.id, t("enter_too", "Enter it too")), button("dismiss", item.id, t("discard", "Discard")));
    } else if (item.state === "held") {
      text.textContent = says(item.label, item.message || t("tap_held", "kept for the host to apply."));
      buttons.push(button("dismiss", item.id, t("ok", "OK")));
    } else if (item.state === "held_back") {
      li.classList.add("error");
      text.textContent = says(item.label, WORDS.held_back);
      buttons.push(button("resend", item.id, t("send", "Send")), button("dismiss", item.id, t("dismiss", "Dismiss")));
    } else {
      const words = SENDABLE.has(item.state) && waitsForResume(item) ? WORDS.paused : WORDS[item.state];
      text.textContent = says(item.label, words || item.state);
    }
    li.appendChild(text);
    if (buttons.length) {
      const row = document.createElement("span");
      row.className = "tap-buttons";
      buttons.forEach((b) => row.appendChild(b));
      li.appendChild(row);
    }
    return li;
  }

  // The outbox's list: the entry's, or between rounds (no entry on the page) a bar of its own
  // outside the live region, so a tap answered then (held, refused) is still shown.
  function outboxList(items) {
    const own = document.querySelector("#entry .outbox");
    const spare = document.getElementById("spare-dock");
    if (own) { if (spare) spare.remove(); return own; }
    if (spare) return spare.querySelector(".outbox");
    if (!items.length) return null;
    const dock = document.createElement("div");
    dock.id = "spare-dock";
    dock.className = "tap-dock";
    dock.setAttribute("role", "region");
    dock.setAttribute("aria-label", t("your_taps", "Your taps"));
    const list = document.createElement("ul");
    list.className = "outbox";
    list.setAttribute("aria-live", "polite");
    dock.appendChild(list);
    document.body.appendChild(dock);
    return list;
  }

  function render() {
    const list = outboxList(load());
    if (list) {
      list.innerHTML = "";
      const items = load();
      for (const item of items) list.appendChild(itemView(item));
      if (!items.length && lastSaved) {
        const li = document.createElement("li");
        li.className = "tap saved";
        li.textContent = says(lastSaved, WORDS.saved);
        list.appendChild(li);
      }
    }
    renderPending();
    reopenQuestion();
  }

  // "+2 not yet saved" beside the side that scores each roll the phone could not send yet.
  function renderPending() {
    const table = tableEl();
    if (!table) return;
    table.querySelectorAll(".side-pending").forEach((el) => el.remove());
    const bySide = new Map();
    for (const i of load()) {
      if (i.kind !== "roll" || !(i.state === "offline" || i.state === "busy") || i.fields.round !== table.dataset.round) continue;
      const key = i.side == null ? 0 : i.side;
      const now = bySide.get(key) || { points: 0, rolls: 0, known: true };
      now.rolls += 1;
      if (i.worth) now.points += i.worth[0]; else now.known = false;
      bySide.set(key, now);
    }
    for (const [side, pending] of bySide) {
      const el = table.querySelector(`.side-${side}`);
      if (!el) continue;
      const note = document.createElement("div");
      note.className = "side-pending";
      note.textContent = pending.known
        ? t("points_unsaved", "+%(points)s not yet saved", { points: pending.points })
        : tn("rolls_unsaved", pending.rolls, "%(count)s roll not yet saved", "%(count)s rolls not yet saved");
      el.appendChild(note);
    }
  }

  function firstSendable(items) {
    for (const item of items) {
      if (item.state === "asking") return null;  // what follows depends on its answer
      if (SENDABLE.has(item.state)) return waitsForResume(item) ? null : item;
    }
    return null;
  }

  // The first sendable tap, and the rolls queued right behind it at the same address (a
  // phone that could not send for a while, or a busy server): they go in one request, which
  // the server takes in order, as if each had come alone next, until one is not simply saved.
  // One request instead of ten lets a phone catch up, and a busy server drain its backlog.
  const MAX_AT_ONCE = 10;  // the server's limit (parties.services.roll, MAX_MORE + 1)
  const MAX_BODY = 3500;  // bytes; the server reads at most 4,096 of a tap
  function sendable(items) {
    const first = firstSendable(items);
    if (!first) return [];
    const batch = [first];
    if (first.kind !== "roll") return batch;
    let size = new URLSearchParams(first.fields).toString().length;
    for (const item of items.slice(items.indexOf(first) + 1)) {
      if (batch.length >= MAX_AT_ONCE || item.kind !== "roll" || item.url !== first.url) break;
      if (!SENDABLE.has(item.state) || waitsForResume(item)) break;
      size += encodeURIComponent(JSON.stringify(item.fields)).length + 3;
      if (size > MAX_BODY) break;
      batch.push(item);
    }
    return batch;
  }

  async function flush() {
    if (sending || Date.now() < busyUntil) return;
    const [item, ...behind] = sendable(load());
    if (!item) return;
    sending = true;
    const form = new URLSearchParams(item.fields);  // a plain form body: the server's lean path
    if (behind.length) form.set("more", JSON.stringify(behind.map((i) => i.fields)));
    let response, data;
    try {
      response = await fetch(item.url, {
        method: "POST", body: form, credentials: "same-origin",
        headers: { "X-CSRFToken": window.buncoCsrf(), Accept: "application/json" },
      });
    } catch (e) {
      return wentOffline();
    }
    try { data = await response.json(); } catch (e) { data = null; }
    if (!data && response.status >= 500) return wentOffline();  // a server restarting: retry
    if (response.status === 503 && data && data.status === "busy") return serverBusy([item, ...behind].map((i) => i.id), response, data);
    retryDelay = 1000;
    sending = false;
    answered(item.id, response, data || { message: t("server_answered", "The server answered %(status)s.", { status: response.status }) });
    // The answers of those sent behind it that the server took, in order; the rest stay
    // queued and go with the next request.
    const more = (response.ok && data && Array.isArray(data.more)) ? data.more : [];
    more.slice(0, behind.length).forEach((one, n) => {
      answered(behind[n].id, { ok: one.http >= 200 && one.http < 300, status: one.http }, one);
    });
    flush();
  }

  function wentOffline() {
    sending = false;
    store(load().map((i) => (SENDABLE.has(i.state) ? { ...i, state: "offline" } : i)));
    render();
    setTimeout(flush, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15000);
  }

  // The server turned the tap away unstarted (nothing saved): it stays first in the outbox,
  // with the same id, and goes again at the table's turn in the server's line: the wait its
  // answer asks (retry_after, to the hundredth; the Retry-After header in whole seconds from a
  // server without one), stretched by up to a fifth at random so phones given close turns do
  // not come back in one wave. Back at its turn, the table is let in ahead of those that have
  // not waited, with what it queued meanwhile in one request.
  function serverBusy(ids, response, data) {
    const asked = Number(data.retry_after) || Number(response.headers.get("Retry-After")) || 1;
    const wait = Math.min(Math.max(asked, 0.2), MAX_BUSY_WAIT) * 1000 * (1 + 0.2 * Math.random());
    busyUntil = Date.now() + wait;
    sending = false;
    retryDelay = 1000;
    store(load().map((i) => (ids.includes(i.id) ? { ...i, state: "busy" } : i)));
    render();
    setTimeout(flush, wait + 10);
  }

  function answered(id, response, data) {
    const item = find(id);
    if (!item) return;  // dismissed meanwhile
    if (response.ok && (data.status === "saved" || data.status === "duplicate")) {
      ownVersions.add(`${item.fields.round}:${data.version}`);
      store(load().filter((i) => i.id !== id).map((i) => (i.state === "offline" ? { ...i, state: "pending" } : i)));
      lastSaved = item.label;
      render();
      return;
    }
    if (response.ok && data.status === "ask_call" && item.fields.called === undefined) {
      update(id, () => ({ state: "asking", ask: data.ask }));
      render();
      return;
    }
    if (response.ok && data.status === "held") {
      update(id, () => ({ state: "held", message: data.message }));
      render();
      return;
    }
    // Refused: it stays with the server's words, and what was queued behind it waits too.
    const state = data.status === "stale" ? "stale" : "refused";
    let behind = false;
    store(load().map((i) => {
      if (i.id === id) {
        behind = true;
        return { ...i, state, message: data.message || t("not_saved", "Not saved."), current: Number(data.version) || 0 };
      }
      return behind && SENDABLE.has(i.state) ? { ...i, state: "held_back" } : i;
    }));
    render();
    if (window.buncoResync) window.buncoResync();  // show the table as it really is
  }

  // Send again (or enter it too) on the table as it stands now.
  function resend(id) {
    const item = find(id);
    if (!item) return;
    observeTable();
    const round = shown ? shown.round : item.fields.round;
    const others = load().filter((i) => i.id !== id);
    store(others);  // it goes to the end of the queue, seen counted from what is ahead of it
    // The server's version in its refusal counts too, if the page has not caught up with it.
    const base = Math.max(shown ? shown.version : 0, item.current && item.fields.round === round ? item.current : 0);
    const fields = { ...item.fields };
    if (item.kind === "undo") fields.round = round;
    fields.seen = String(nextSeen(base, fields.round));
    others.push({ ...item, fields, expects: Number(fields.seen) + 1, state: "pending", message: "",
                  madePaused: paused() });
    store(others);
    render();
    flush();
  }
  function dismiss(id) {
    store(load().filter((i) => i.id !== id));
    render();
    flush();
  }

  // --- "Did they call it?" -----------------------------------------------------------

  function askCall(item) {
    const dialog = document.querySelector(".call-dialog");
    if (!dialog || dialog.open) return;
    const table = tableEl();
    const roller = t("the_roller", "the roller");
    const who = table ? (table.querySelector(".roller-name") || {}).textContent || roller : roller;
    const word = item.ask === "bunco" ? t("call_bunco", "Bunco!") : t("call_mini_bunco", "Mini Bunco!");
    dialog.querySelector(".call-question").textContent = t("call_question", "Did %(who)s call “%(word)s”?", { who, word });
    dialog.dataset.tapId = item.id;
    dialog.returnValue = "";
    dialog.showModal();
  }
  // The question belongs to the tap, not to the dialog element: a refresh of the page's live
  // region replaces the dialog, and an unanswered question comes back; an answered one never.
  function reopenQuestion() {
    const waiting = load().find((i) => i.state === "asking");
    if (waiting) askCall(waiting);
  }
  function answerCall(dialog, answer) {
    const id = dialog.dataset.tapId;
    dialog.close(answer);
    const item = find(id);
    if (!item || item.state !== "asking") return;
    update(id, (i) => ({ state: "pending", fields: { ...i.fields, called: answer } }));
    render();
    flush();
  }

  // --- Entering a roll ---------------------------------------------------------------

  function diceNeeded() {
    // The table says how many dice its next roll throws (the rules' count, or three in a
    // dice-total roll-off); the entry's count while the table shows none.
    const table = tableEl();
    return Number((table && table.dataset.dice) || entry().dataset.dice);
  }
  function showFaces() {
    const slots = document.querySelector(".slots");
    if (!slots) return;
    const n = diceNeeded();
    slots.innerHTML = "";
    for (let i = 0; i < n; i++) {
      const s = document.createElement("span");
      s.className = "slot" + (pendingFaces[i] ? " filled" : "");
      s.textContent = pendingFaces[i] || "";
      slots.appendChild(s);
    }
    document.querySelector(".clear-dice").hidden = !pendingFaces.length;
    // Read out as words: the boxes side by side would read "11" for two 1s.
    const said = document.querySelector(".dice-said");
    if (said) said.textContent = pendingFaces.length ? t("dice_entered", "Dice entered: %(dice)s", { dice: pendingFaces.join(", ") }) : "";
  }

  function syncControls() {
    const e = entry();
    const table = tableEl();
    observeTable();
    if (!e || !table) return;
    const phase = table.dataset.phase;
    const diceTotal = phase === "rolloff" && table.dataset.rolloff === "rolloff_dice_total";
    e.dataset.phase = phase;
    e.querySelector(".quick").hidden = phase === "done" || diceTotal;
    e.querySelector(".dice-entry").hidden = phase === "done";
    e.querySelector(".undo").disabled = table.dataset.canUndo !== "1";
    showFaces();
  }

  // The roll is begun at the first touch of its entry: the first die's face, a quick button,
  // or Undo. Capturing, so it is taken before anything else reacts to the touch.
  document.addEventListener("pointerdown", (event) => {
    const e = entry();
    if (!e || !e.contains(event.target)) return;
    if (event.target.closest(".face") && !pendingFaces.length) beginEntry();
    else if (event.target.closest(".quick-form button, .undo-form button")) { started = null; beginEntry(); }
  }, true);

  document.addEventListener("click", (event) => {
    const action = event.target.closest("[data-tap-action]");
    if (action && action.closest(".outbox")) {
      (action.dataset.tapAction === "resend" ? resend : dismiss)(action.dataset.tapId);
      return;
    }
    const callButton = event.target.closest(".call-dialog .call-buttons button");
    if (callButton) { answerCall(callButton.closest("dialog"), callButton.value === "yes" ? "yes" : "no"); return; }
    const e = entry();
    if (!e || !e.contains(event.target)) return;
    const face = event.target.closest(".face");
    if (face) {
      if (!pendingFaces.length) beginEntry();
      pendingFaces.push(Number(face.dataset.face));
      if (pendingFaces.length >= diceNeeded()) {
        const dice = pendingFaces.slice(0, diceNeeded());
        pendingFaces = [];
        enqueue("roll", { dice: dice.join(",") }, dice.join(" "));
      }
      showFaces();
      return;
    }
    if (event.target.closest(".clear-dice")) { pendingFaces = []; started = null; showFaces(); return; }
    const pick = event.target.closest(".face-pick");
    if (pick) {
      e.querySelector(".mini-faces").close();
      enqueue("roll", { outcome: "mini", face: pick.dataset.face }, t("mini_bunco_of", "Mini Bunco of %(face)ss", { face: pick.dataset.face }));
      return;
    }
    if (event.target.closest(".cancel-mini")) { e.querySelector(".mini-faces").close(); started = null; }
  });

  // The question must be answered: Escape does not make it go away unanswered.
  document.addEventListener("cancel", (event) => {
    if (event.target.matches && event.target.matches(".call-dialog")) event.preventDefault();
    if (event.target.matches && event.target.matches(".mini-faces")) started = null;
  }, true);

  document.addEventListener("submit", (event) => {
    const form = event.target;
    const e = entry();
    if (!e || !e.contains(form)) return;
    event.preventDefault();
    if (form.classList.contains("undo-form")) {
      enqueue("undo", {}, t("undo", "Undo"));
      return;
    }
    const outcome = form.dataset.outcome;
    if (outcome === "mini" && e.dataset.miniFace === "1") {
      beginEntry();
      e.querySelector(".mini-faces").showModal();  // in view, whatever the page's scroll
      return;
    }
    const label = form.querySelector("button").textContent.trim();
    enqueue("roll", { outcome }, label);
  });

  document.addEventListener("bunco:table", () => { syncControls(); renderPending(); });
  document.addEventListener("bunco:resynced", () => { syncControls(); render(); flush(); });
  window.addEventListener("online", flush);
  syncControls();
  render();
  flush();  // anything left from before a reload or while offline goes now
  setInterval(flush, 5000);
})();
