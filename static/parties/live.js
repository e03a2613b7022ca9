// The live page: one websocket that only pushes, resync from the server whenever in doubt,
// the bell (banner, sound, vibration), and the screen kept awake for scorekeepers.
(function () {
  const body = document.body;
  const party = body.dataset.party;
  if (!party) return;

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

  function resync() {
    const live = document.getElementById("live");
    if (!live || !window.htmx) return Promise.resolve();
    return htmx.ajax("GET", window.location.pathname, { target: "#live", swap: "outerHTML" }).then(() => {
      const fresh = document.getElementById("live");
      if (fresh) lastSeq = Math.max(lastSeq, Number(fresh.dataset.seq || 0));
      document.dispatchEvent(new CustomEvent("bunco:resynced"));
      if (tables() !== subscribed) reconnect();  // a player moved tables: watch the new one
    });
  }
  window.buncoResync = resync;

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    subscribed = tables();
    socket = new WebSocket(`${scheme}://${location.host}/ws/parties/${party}/?tables=${subscribed}`);
    socket.onopen = () => {
      attempts = 0;
      body.dataset.socket = "open";
      if (everOpened) resync();  // anything may have happened while we were away
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
    if (message.type === "table") return applyTable(message);
    if (message.type === "resync") return resync();  // pushes were lost on the server's side
    if (message.seq <= lastSeq) return;  // already seen (or older than what we fetched)
    lastSeq = message.seq;
    if (message.type === "bell") return bell();
    if (message.type === "round" && message.what === "closed") ring("Round over! See where to sit next.");
    resync();
  }

  // The bell changes every table, and each table's update follows it over the socket: a whole
  // party fetching its pages at the bell would be hundreds of requests at once. Only a page
  // still showing a table from before the bell a while later (its update lost) fetches.
  const BELL_UPDATES_WAIT = 3000;
  function bell() {
    ring("Bell! Finish your turn; the round is ending.");
    setTimeout(() => {
      if (document.querySelector('#live .live-table[data-bell="0"]')) resync();
    }, BELL_UPDATES_WAIT);
  }

  function applyTable(message) {
    const current = document.getElementById(`table-${message.table}`);
    if (!current) return;
    if (String(message.round) !== current.dataset.round) return resync();
    // Newer means a later version, or the same version now that the bell has rung (a bell
    // changes every table without a roll there; a tap's staleness check ignores it).
    const version = Number(current.dataset.version);
    const bellNews = message.bell && current.dataset.bell !== "1";
    if (message.version < version || (message.version === version && !bellNews)) return;
    current.outerHTML = message.html;
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
  let audio = null;
  function unlockAudio() {
    if (!audio && (window.AudioContext || window.webkitAudioContext)) {
      audio = new (window.AudioContext || window.webkitAudioContext)();
    }
    if (audio && audio.state === "suspended") audio.resume();
  }
  document.addEventListener("pointerdown", unlockAudio, { once: false, passive: true });

  function chime() {
    if (!audio) return;
    const now = audio.currentTime;
    [880, 1320, 1760].forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.02);
      gain.gain.exponentialRampToValueAtTime(0.3 / (i + 1), now + i * 0.02 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + 1.6);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.02);
      osc.stop(now + 1.7);
    });
  }

  function ring(text) {
    const banner = document.getElementById("bell-banner");
    if (banner) {
      banner.querySelector(".bell-text").textContent = text;
      banner.hidden = false;
      clearTimeout(banner._timer);
      banner._timer = setTimeout(() => { banner.hidden = true; }, 8000);
    }
    body.dataset.bells = String(Number(body.dataset.bells || 0) + 1);
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

  // Keep the scorekeeper's screen on while the page is open (where the browser allows it).
  let wakeLock = null;
  async function keepAwake() {
    if (!body.dataset.wakeLock || !("wakeLock" in navigator) || document.visibilityState !== "visible") return;
    try { wakeLock = await navigator.wakeLock.request("screen"); } catch (e) { wakeLock = null; }
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { keepAwake(); resync(); }
  });
  // The last line of defence against a push lost anywhere: refetch now and then while visible.
  setInterval(() => { if (document.visibilityState === "visible") resync(); }, 120000);
  keepAwake();
  tick();
  connect();
})();
