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
    // How many ghosts (if any) fill the seats depends on the rules: the plan preview says it.
    const n = names().length;
    count.textContent = n ? `${n} player${n > 1 ? "s" : ""}` : "";
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
