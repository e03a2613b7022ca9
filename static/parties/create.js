// The create form's small comforts: add players one at a time, and count the list as it grows.
(function () {
  const list = document.getElementById("id_players");
  const box = document.getElementById("add-player");
  const input = document.getElementById("new-player");
  const count = document.getElementById("player-count");
  if (!list || !box) return;
  box.hidden = false;
  // The words in the page's language (strings.js, loaded by templates/parties/_js_strings.html);
  // in English on a page without them.
  const tn = window.buncoTn || ((key, n, one, other) => (n === 1 ? one : other).replace("%(count)s", n));

  function names() {
    return list.value.split("\n").map((s) => s.trim()).filter(Boolean);
  }
  function showCount() {
    // How many ghosts (if any) fill the seats depends on the rules: the plan preview says it.
    const n = names().length;
    count.textContent = n ? tn("player_count", n, "%(count)s player", "%(count)s players") : "";
  }
  function add() {
    const name = input.value.trim();
    if (!name) { input.focus(); return; }
    const current = list.value.replace(/\s+$/, "");
    list.value = current ? current + "\n" + name : name;
    input.value = "";
    input.focus();
    list.dispatchEvent(new Event("input", { bubbles: true }));  // the plan preview listens
  }
  document.getElementById("add-player-button").addEventListener("click", add);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); add(); }
  });
  list.addEventListener("input", showCount);
  showCount();
})();
