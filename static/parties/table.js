// The scorekeeper's entry: dice faces or quick buttons, "called it?", undo, and an outbox in
// localStorage so that no tap is lost to a dead connection or a reload. Each tap has an id
// made here; the server records a retried tap once.
(function () {
  const STATES = { pending: "sending…", offline: "offline: will send when back", saved: "saved" };
  let sending = false;
  let retryDelay = 1000;
  let pendingFaces = [];

  function entry() { return document.getElementById("entry"); }
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

  function uuid4() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  // The version the next fact will be checked against: the table's, plus what is queued.
  function nextSeen() {
    const table = tableEl();
    const base = table ? Number(table.dataset.version) : 0;
    const known = Number(document.body.dataset.ackedVersion || 0);
    return Math.max(base, known) + load().length;
  }

  function enqueue(kind, fields, label) {
    const e = entry();
    if (!e) return;
    const items = load();
    const url = kind === "undo" ? e.dataset.undoUrl : e.dataset.rollUrl;
    const item = { id: uuid4(), url, label, state: "pending", fields: { ...fields } };
    item.fields.seen = String(nextSeen());
    if (kind !== "undo") {
      item.fields.tap_id = item.id;
      const table = tableEl();
      if (table) item.fields.round = table.dataset.round;  // a tap never lands in a later round
    }
    items.push(item);
    store(items);
    render();
    flush();
  }

  function render(message, isError) {
    const list = document.querySelector(".outbox");
    if (!list) return;
    list.innerHTML = "";
    for (const item of load()) {
      const li = document.createElement("li");
      li.className = `tap ${item.state}`;
      li.textContent = `${item.label}: ${STATES[item.state] || item.state}`;
      list.appendChild(li);
    }
    if (message) {
      const li = document.createElement("li");
      li.className = isError ? "tap error" : "tap saved";
      li.textContent = message;
      list.appendChild(li);
      setTimeout(() => li.remove(), isError ? 8000 : 2500);
    }
  }

  async function flush() {
    if (sending) return;
    const items = load();
    if (!items.length) return;
    sending = true;
    const item = items[0];
    const form = new URLSearchParams(item.fields);  // a plain form body: the server's lean path
    let response, data;
    try {
      response = await fetch(item.url, {
        method: "POST", body: form, credentials: "same-origin",
        headers: { "X-CSRFToken": window.buncoCsrf(), Accept: "application/json" },
      });
      data = await response.json();
    } catch (e) {
      sending = false;
      setState(item.id, "offline");
      setTimeout(flush, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 15000);
      return;
    }
    retryDelay = 1000;
    sending = false;
    if (response.ok && data.status === "ask_call") {
      askCall(item, data.ask);
      return;
    }
    remove(item.id);
    if (response.ok) {
      document.body.dataset.ackedVersion = String(data.version);
      render(`${item.label}: ${STATES.saved}`);
    } else {
      render(data.message || "Not saved.", true);
      // The queue was built on a state the server did not take: drop what followed it too.
      if (data.status === "stale" || data.status === "refused") {
        document.body.dataset.ackedVersion = "0";
        store([]);
        render(data.message || "Not saved.", true);
      }
      if (window.buncoResync) window.buncoResync();
    }
    flush();
  }

  function setState(id, state) {
    store(load().map((i) => (i.id === id ? { ...i, state } : i)));
    render();
  }
  function remove(id) { store(load().filter((i) => i.id !== id)); }

  function askCall(item, kind) {
    const dialog = document.querySelector(".call-dialog");
    const table = tableEl();
    const who = table ? (table.querySelector(".roller-name") || {}).textContent || "the roller" : "the roller";
    const word = kind === "bunco" ? "Bunco!" : "Mini Bunco!";
    dialog.querySelector(".call-question").textContent = `Did ${who} call “${word}”?`;
    dialog.onclose = () => {
      const answer = dialog.returnValue === "yes" ? "yes" : "no";
      store(load().map((i) => (i.id === item.id ? { ...i, fields: { ...i.fields, called: answer } } : i)));
      flush();
    };
    dialog.querySelectorAll(".call-buttons button").forEach((button) => {
      button.onclick = () => dialog.close(button.value);
    });
    dialog.showModal();
  }

  // Dice faces: tap each die; the roll goes when all of them are in.
  function diceNeeded() {
    const table = tableEl();
    if (table && table.dataset.phase === "rolloff" && table.dataset.rolloff === "rolloff_dice_total") return 3;
    return Number(entry().dataset.dice);
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
  }

  function syncControls() {
    const e = entry();
    const table = tableEl();
    if (!e || !table) return;
    const phase = table.dataset.phase;
    const diceTotal = phase === "rolloff" && table.dataset.rolloff === "rolloff_dice_total";
    e.dataset.phase = phase;
    e.querySelector(".quick").hidden = phase === "done" || diceTotal;
    e.querySelector(".dice-entry").hidden = phase === "done";
    e.querySelector(".undo").disabled = table.dataset.canUndo !== "1";
    showFaces();
  }

  document.addEventListener("click", (event) => {
    const e = entry();
    if (!e || !e.contains(event.target)) return;
    const face = event.target.closest(".face");
    if (face) {
      pendingFaces.push(Number(face.dataset.face));
      if (pendingFaces.length >= diceNeeded()) {
        const dice = pendingFaces.slice(0, diceNeeded());
        pendingFaces = [];
        enqueue("roll", { dice: dice.join(",") }, dice.join(" "));
      }
      showFaces();
      return;
    }
    if (event.target.closest(".clear-dice")) { pendingFaces = []; showFaces(); return; }
    const pick = event.target.closest(".face-pick");
    if (pick) {
      e.querySelector(".mini-faces").hidden = true;
      enqueue("roll", { outcome: "mini", face: pick.dataset.face }, `Mini Bunco of ${pick.dataset.face}s`);
      return;
    }
    if (event.target.closest(".cancel-mini")) { e.querySelector(".mini-faces").hidden = true; }
  });

  document.addEventListener("submit", (event) => {
    const form = event.target;
    const e = entry();
    if (!e || !e.contains(form)) return;
    event.preventDefault();
    if (form.classList.contains("undo-form")) {
      enqueue("undo", {}, "Undo");
      return;
    }
    const outcome = form.dataset.outcome;
    if (outcome === "mini" && e.dataset.miniFace === "1") {
      e.querySelector(".mini-faces").hidden = false;
      return;
    }
    const label = form.querySelector("button").textContent.trim();
    enqueue("roll", { outcome }, label);
  });

  document.addEventListener("bunco:table", syncControls);
  document.addEventListener("bunco:resynced", () => {
    document.body.dataset.ackedVersion = "0";  // the fetched table's version is the truth now
    syncControls();
    render();
  });
  window.addEventListener("online", flush);
  syncControls();
  render();
  flush();  // anything left from before a reload or while offline goes now
  setInterval(flush, 5000);
})();
