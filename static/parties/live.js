// The live page: one websocket that only pushes, resync from the server whenever in doubt,
// the bell (banner, sound, vibration), and the screen kept awake for scorekeepers in play.
(function () {
  const body = document.body;
  const party = body.dataset.party;
  if (!party) return;
  // The words in the page's language (strings.js, loaded by templates/parties/_js_strings.html);
  // in English on a page without them.
  const t = window.buncoT || ((key, english, values) => english.replace(/%\((\w+)\)s/g, (m, name) => (values || {})[name]));

  let socket = null;
  let attempts = 0;
  let lastSeq = Number((document.getElementById("live") || {}).dataset?.seq || 0);
  let subscribed = "";
  let pongTimer = null;
  let heartbeat = null;
  let everOpened = false;

  function tables() {
    const live = document.getElementById("live");
    return (live && live.dataset.tables) || body.dataset.tables || "";
  }

  // One refetch at a time. Many things ask for one (a push, the bell's 3-second check, the
  // page coming back into view); two in flight could land in either order and leave the older
  // page shown. A request made while one is under way is answered by one more fetch after it,
  // so the last page to land is always one fetched after the last request.
  let refetching = null;  // the promise of the fetches under way
  let wanted = false;  // asked for since the fetch under way began
  function resync() {
    wanted = true;
    if (!refetching) refetching = refetchWhileWanted().finally(() => { refetching = null; });
    return refetching;
  }
  async function refetchWhileWanted() {
    while (wanted) {
      wanted = false;
      try { await refetchLive(); } catch (e) { /* the next push, visibility or timer retries */ }
    }
  }
  async function refetchLive() {
    const live = document.getElementById("live");
    if (!live || !window.htmx) return;
    body.dataset.refetches = String(Number(body.dataset.refetches || 0) + 1);
    // With the query shown: the host's grid keeps its filter and search (parties/host_grid.py).
    const here = window.location.pathname + window.location.search;
    await htmx.ajax("GET", here, { target: "#live", swap: "outerHTML" });
    const fresh = document.getElementById("live");
    if (fresh) lastSeq = Math.max(lastSeq, Number(fresh.dataset.seq || 0));
    sayTable();
    document.dispatchEvent(new CustomEvent("bunco:resynced"));
    if (tables() !== subscribed) reconnect();  // a player moved tables: watch the new one
  }
  window.buncoResync = resync;

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    subscribed = tables();
    const round = (document.getElementById("live") || {}).dataset?.round || "";
    // The view tells the server which of a round close's messages this page takes.
    const view = encodeURIComponent(body.dataset.view || "");
    socket = new WebSocket(`${scheme}://${location.host}/ws/parties/${party}/` +
      `?tables=${subscribed}&round=${round}&view=${view}`);
    socket.onopen = () => {
      attempts = 0;
      body.dataset.socket = "open";
      // Anything may have happened while we were away. On the first open, the server's hello
      // says whether anything happened between the page's render and this socket joining.
      if (everOpened) resync();
      everOpened = true;
      clearInterval(heartbeat);
      heartbeat = setInterval(ping, 15000);
    };
    socket.onmessage = (event) => receive(event.data);
    socket.onclose = () => {
      body.dataset.socket = "closed";
      clearInterval(heartbeat);
      clearTimeout(pongTimer);
      // Reconnect always, whatever the close code, backing off up to ~10 s with jitter.
      const delay = Math.min(10000, 500 * 2 ** attempts++) * (0.75 + Math.random() / 2);
      setTimeout(connect, delay);
    };
  }

  function reconnect() {
    if (socket) socket.close();  // onclose reconnects with the new tables
  }

  function ping() {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    socket.send("ping");
    clearTimeout(pongTimer);
    pongTimer = setTimeout(() => socket.close(), 10000);  // no pong: the socket is dead
  }

  function receive(text) {
    if (text === "pong") { clearTimeout(pongTimer); return; }
    let message;
    try { message = JSON.parse(text); } catch (e) { return; }
    if (message.type === "hello") return hello(message);
    if (message.type === "table") return applyTable(message);
    if (message.type === "resync") return resync();  // pushes were lost on the server's side
    if (message.type === "round" && message.views) return showNextSeat(message);
    if (message.seq <= lastSeq) return;  // already seen (or older than what we fetched)
    lastSeq = message.seq;
    if (message.type === "bell") return bell();
    if (message.type === "round" && message.what === "closed") ring(t("round_closed", "Round over! See where to sit next."));
    if (message.type === "round" && message.what === "finished") ring(t("night_over", "That's the night! See the prizes."));
    if (message.type === "round" && message.what === "started") {
      ring(t("round_started", "The round has started: roll!"), { bell: false });
    }
    if (message.type === "round" && message.what === "reopened") {
      ring(t("round_reopened", "A roll was taken back: the round is in play again."), { bell: false });
    }
    resync();
  }

  // The socket's first message: the party's seq and the version of the round this page shows,
  // as the server has them now that the socket hears every change. A page rendered before a
  // change the socket was not yet there to hear (a round started, a roll) fetches it.
  let greeted = false;
  function hello(message) {
    if (greeted) return;  // a reopened socket resyncs anyway (onopen)
    greeted = true;
    const live = document.getElementById("live");
    const shown = Number((live && live.dataset.roundVersion) || 0);
    if (message.seq > lastSeq || message.version > shown) resync();
  }

  // A round closed. Its table's message carries each page that shows the table its new seat
  // (for this page's data-view: a table's page the pieces named by their ids, a player's page
  // its seat as data), shown at once:
  // hundreds of phones refetching their pages at that moment took seconds (bench/ S6). The
  // rest of the page (the sheet, the banner) is refetched a little later: after
  // `refetch_after` seconds (the close is still going out to the other phones until then), at
  // a moment of this phone's own within `refetch_within` more; a player who moved reconnects to
  // watch the new table then, and the reopened socket refetches.
  function showNextSeat(message) {
    const view = message.views[body.dataset.view || ""];
    if (!view) return;  // not for this page (the server sends this page the party-wide one)
    if (message.seq <= lastSeq) return;
    lastSeq = message.seq;
    const shown = view.where ? fillWhere(view.where) : replacePieces(view.html);
    const live = document.getElementById("live");
    if (live) live.dataset.tables = view.tables;
    ring(t("round_closed", "Round over! See where to sit next."));
    const later = shown ? (message.refetch_after || 0) + Math.random() * (message.refetch_within || 0) : 0;
    setTimeout(() => {
      if (tables() !== subscribed) reconnect();
      else resync();
    }, later * 1000);
  }

  // A scorekeeper's or player's table, in words for a screen reader (#table-said, polite): the
  // score, the phase and whose turn, said once each time one of them changes. The host's and
  // the TV's pages show every table: they say nothing here (the bell has its own banner).
  let lastSaid = null;
  function sayTable() {
    const said = document.getElementById("table-said");
    const table = document.querySelector("#live .live-table");
    if (!said || !table || !["table", "player"].includes(body.dataset.role)) return;
    const words = (el) => (el ? el.textContent.replace(/\s+/g, " ").trim() : "");
    const sides = [...table.querySelectorAll(".side")].map(
      (side) => `${words(side.querySelector(".side-names"))} ${words(side.querySelector(".side-points"))}`);
    const text = [t("table_said", "Table %(number)s: %(sides)s", { number: table.dataset.table, sides: sides.join(", ") }),
      words(table.querySelector(".phase")), words(table.querySelector(".turn"))]
      .filter(Boolean).join(". ");
    if (lastSaid === null) { lastSaid = text; return; }  // what the page showed as it opened
    if (text === lastSaid) return;
    lastSaid = text;
    said.textContent = text;
  }
  sayTable();

  function replacePieces(html) {
    const fresh = document.createElement("template");
    fresh.innerHTML = html;
    for (const piece of [...fresh.content.children]) {
      const old = piece.id && document.getElementById(piece.id);
      if (old) old.replaceWith(piece);
    }
    return true;
  }

  // A player's page is told its new seat as data: each slot _where.html names (data-where)
  // takes its value, and the partner's words come from the page's own <template>. False when
  // the page shows no seat (not seated, or the night over): it refetches at once instead.
  function fillWhere(where) {
    const section = document.getElementById("where");
    const partnerWords = document.getElementById("where-partner");
    const seat = section && section.querySelector('[data-where="seat"]');
    if (!seat || (where.partner && !partnerWords)) return false;
    for (const old of section.querySelectorAll(".where-partner")) old.remove();
    if (where.partner) seat.after(partnerWords.content.cloneNode(true));
    for (const [name, value] of Object.entries(where)) {
      for (const slot of document.querySelectorAll(`[data-where="${name}"]`)) slot.textContent = value;
    }
    return true;
  }

  // The bell changes every table, and each table's update follows it over the socket: a whole
  // party fetching its pages at the bell would be hundreds of requests at once. Only a page
  // still showing a table from before the bell a while later (its update lost) fetches.
  const BELL_UPDATES_WAIT = 3000;
  function bell() {
    ring(t("bell", "Bell! Finish your turn; the round is ending."));
    setTimeout(() => {
      if (document.querySelector('#live .live-table[data-bell="0"], #live #table-grid[data-bell="0"]')) resync();
    }, BELL_UPDATES_WAIT);
  }

  function applyTable(message) {
    const current = document.getElementById(`table-${message.table}`);
    if (!current) {
      // A big party's host shows the tables as a grid of small cells, refetched, not pushed.
      if (body.dataset.refetchOnTable && document.getElementById("table-grid")) refetchSoon();
      return;
    }
    if (String(message.round) !== current.dataset.round) return resync();
    // Newer means a later version, or the same version now that the bell has rung (a bell
    // changes every table without a roll there; a tap's staleness check ignores it).
    const version = Number(current.dataset.version);
    const bellNews = message.bell && current.dataset.bell !== "1";
    if (message.version < version || (message.version === version && !bellNews)) return;
    current.outerHTML = message.html;
    sayTable();
    document.dispatchEvent(new CustomEvent("bunco:table", { detail: message }));
    if (body.dataset.refetchOnTable) refetchSoon();  // the host's roll list follows the rolls
  }

  // At most one refetch a second for the roll list: each renders the whole dashboard, and a
  // 100-table party rolls many times a second (after a bell, 100 table updates arrive at once).
  const REFETCH_EVERY = 1000;
  let refetchTimer = null;
  let lastRefetch = 0;
  function refetchSoon() {
    if (refetchTimer) return;  // one is already due: it will fetch everything up to then
    const wait = Math.max(0, lastRefetch + REFETCH_EVERY - Date.now());
    refetchTimer = setTimeout(() => {
      refetchTimer = null;
      lastRefetch = Date.now();
      resync();
    }, wait);
  }

  // The bell: a banner, a chime (Web Audio, no file to fetch), and a buzz.
  //
  // Browsers keep audio silent until the page is touched, so a phone nobody touched would ring
  // without a sound. The page asks once ("Sound on", one tap, which unlocks the audio), keeps
  // the answer in localStorage, and says whenever sound is off: not chosen, or chosen but not
  // yet unlocked on this page load (the next tap anywhere unlocks it).
  const SOUND_KEY = "bunco-sound";
  let audio = null;
  function soundChoice() {
    try { return localStorage.getItem(SOUND_KEY); } catch (e) { return null; }
  }
  function chooseSound(choice) {
    try { localStorage.setItem(SOUND_KEY, choice); } catch (e) { /* private mode: ask again */ }
  }
  function audioRunning() { return Boolean(audio && audio.state === "running"); }
  function unlockAudio() {
    if (soundChoice() !== "on") return Promise.resolve();
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) {
      audio = new Context();
      audio.addEventListener("statechange", showSound);
    }
    const resumed = audio && audio.state === "suspended" ? audio.resume() : Promise.resolve();
    return resumed.catch(() => {}).then(showSound);
  }
  function showSound() {
    const bar = document.getElementById("sound-bar");
    const choice = soundChoice();
    const state = choice === "off" ? "off" : choice !== "on" ? "ask" : audioRunning() ? "on" : "locked";
    body.dataset.sound = state;
    if (!bar) return;
    bar.hidden = state === "on";
    bar.dataset.state = state;
    // The host's page and the TV are a laptop's or a wall's screen more often than a phone.
    const screen = ["host", "tv"].includes(body.dataset.role);
    bar.querySelector(".sound-text").textContent = {
      ask: screen ? t("sound_ask_screen", "Hear the bell on this screen?") : t("sound_ask_phone", "Hear the bell on this phone?"),
      locked: t("sound_locked", "Sound is off until you tap the screen."),
      off: t("sound_off", "Sound is off."),
    }[state] || "";
    bar.querySelector(".sound-off").hidden = state !== "ask";
  }
  document.addEventListener("pointerdown", () => { unlockAudio(); }, { passive: true });
  document.addEventListener("click", (event) => {
    if (event.target.closest("#sound-bar .sound-on")) {
      chooseSound("on");
      unlockAudio().then(() => chime(0.12));  // a soft chime: this is what the bell sounds like
    } else if (event.target.closest("#sound-bar .sound-off")) {
      chooseSound("off");
      showSound();
    }
  });

  function chime(volume = 0.3) {
    if (!audioRunning()) return;
    body.dataset.chimes = String(Number(body.dataset.chimes || 0) + 1);
    const now = audio.currentTime;
    [880, 1320, 1760].forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.02);
      gain.gain.exponentialRampToValueAtTime(volume / (i + 1), now + i * 0.02 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + 1.6);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.02);
      osc.stop(now + 1.7);
    });
  }

  // The banner lies over the top of the page: long enough to be seen, not long enough to
  // hide the score while the table plays on (and a tap hides it at once).
  const BANNER_FOR = 4000;
  function ring(text, { bell = true } = {}) {
    const banner = document.getElementById("bell-banner");
    if (banner) {
      banner.querySelector(".bell-text").textContent = text;
      banner.hidden = false;
      clearTimeout(banner._timer);
      banner._timer = setTimeout(() => { banner.hidden = true; }, BANNER_FOR);
    }
    const count = bell ? "bells" : "announcements";
    body.dataset[count] = String(Number(body.dataset[count] || 0) + 1);
    chime();
    if (navigator.vibrate) navigator.vibrate([250, 120, 250]);
  }
  window.buncoRing = ring;
  const bellBanner = document.getElementById("bell-banner");
  if (bellBanner) bellBanner.addEventListener("click", () => { bellBanner.hidden = true; });  // tap to dismiss

  // Timed rounds: a countdown on every phone; when it runs out, report it (the server checks).
  function tick() {
    document.querySelectorAll(".countdown").forEach((el) => {
      const left = Math.max(0, Date.parse(el.dataset.endsAt) - Date.now());
      const m = Math.floor(left / 60000), s = Math.floor((left % 60000) / 1000);
      el.textContent = `${m}:${String(s).padStart(2, "0")}`;
      if (left === 0 && !el.dataset.reported && el.dataset.clockUrl && body.dataset.role !== "player") {
        el.dataset.reported = "1";
        fetch(el.dataset.clockUrl, {
          method: "POST", headers: { "X-CSRFToken": csrf(), Accept: "application/json" },
          credentials: "same-origin",
        }).catch(() => { delete el.dataset.reported; });
      }
    });
  }
  setInterval(tick, 1000);

  function csrf() {
    const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }
  window.buncoCsrf = csrf;

  // Keep the scorekeeper's screen on while a round is in play. The Wake Lock API exists only
  // in a secure context (HTTPS, or localhost); a party served from the host's laptop over
  // plain HTTP on the home Wi-Fi has none, so there a silent looping video keeps the screen on
  // (NoSleep.js, vendored). A browser plays it only after a tap, so every tap asks again
  // until it plays. body[data-awake] says which is on: wake-lock, video, off, or needs-tap.
  let wakeLock = null;
  let noSleep = null;
  let awaking = null;  // the request under way: two at once could take two locks, one never released
  function roundInPlay() {
    if (body.dataset.wakeLock === "always") return true;  // the room's scoreboard: all night
    const live = document.getElementById("live");
    return Boolean(body.dataset.wakeLock && live && live.dataset.roundStatus === "playing");
  }
  function keepAwake() {
    if (!awaking) awaking = stayAwake().finally(() => { awaking = null; });
    return awaking;
  }
  async function stayAwake() {
    if (!roundInPlay() || document.visibilityState !== "visible") return letSleep();
    if ("wakeLock" in navigator) {
      if (wakeLock && !wakeLock.released) return;
      try {
        wakeLock = await navigator.wakeLock.request("screen");
        body.dataset.awake = "wake-lock";
        wakeLock.addEventListener("release", () => { if (body.dataset.awake === "wake-lock") body.dataset.awake = "off"; });
      } catch (e) {
        wakeLock = null;
        body.dataset.awake = "needs-tap";  // refused (battery saver, or no tap yet)
      }
      return;
    }
    if (!window.NoSleep) return;
    if (!noSleep) noSleep = new window.NoSleep();
    // A hidden page's video is paused by the browser while NoSleep still says enabled.
    const video = noSleep.noSleepVideo;
    if (noSleep.isEnabled && !(video && video.paused)) return;
    if (noSleep.isEnabled) noSleep.disable();
    try {
      await noSleep.enable();
      body.dataset.awake = "video";
    } catch (e) {
      body.dataset.awake = "needs-tap";
    }
  }
  function letSleep() {
    if (wakeLock) { wakeLock.release().catch(() => {}); wakeLock = null; }
    if (noSleep && noSleep.isEnabled) noSleep.disable();
    if (body.dataset.wakeLock) body.dataset.awake = "off";
  }
  // Every tap asks again (at once if the screen is already kept on): a video paused while the
  // phone showed another app plays again only from a tap.
  document.addEventListener("pointerdown", () => { keepAwake(); }, { passive: true });
  document.addEventListener("bunco:resynced", () => { keepAwake(); });  // a round began or ended
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { keepAwake(); resync(); }
  });
  // The last line of defence against a push lost anywhere: refetch now and then while visible.
  setInterval(() => { if (document.visibilityState === "visible") resync(); }, 120000);
  keepAwake();
  tick();
  showSound();
  unlockAudio();  // where the browser allows sound without a touch, it is on at once
  connect();
})();
