// The create form's small comforts: add players one at a time, and count the list as it grows.
(function () {
  const list = document.getElementById("id_players");
  const box = document.getElementById("add-player");
  const input = document.getElementById("new-player");
  const count = document.getElementById("player-count");
  if (!list || !box) return;
  box.hidden = false;

  function names() {
    return list.value.split("\n").map((s) => s.trim()).filter(Boolean);
  }
  function showCount() {
    const n = names().length;
    const ghosts = (4 - (n % 4)) % 4;
    count.textContent = n ? `${n} players` + (ghosts ? `, ${ghosts} ghost${ghosts > 1 ? "s" : ""} will fill the empty seats` : "") : "";
  }
  function add() {
    const name = input.value.trim();
    if (!name) { input.focus(); return; }
    const current = list.value.replace(/\s+$/, "");
    list.value = current ? current + "\n" + name : name;
    input.value = "";
    input.focus();
    showCount();
  }
  document.getElementById("add-player-button").addEventListener("click", add);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); add(); }
  });
  list.addEventListener("input", showCount);
  showCount();
})();
