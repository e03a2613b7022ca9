// Every page's small behaviours, declared in the HTML as data- attributes instead of inline
// handlers, which the Content-Security-Policy forbids (script-src 'self'). Listeners sit on the
// document, so forms and fields that htmx or the socket swap in later behave the same.
(function () {
  // <button data-print>: print the page (table cards, results).
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-print]")) window.print();
  });

  // <form data-confirm="question">: ask before sending. Capturing, so a refusal stops the
  // submit before htmx or anything else acts on it.
  document.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  // <input data-select-all>: one tap selects the whole link, ready to copy.
  document.addEventListener("focusin", (event) => {
    if (event.target.matches("input[data-select-all]")) event.target.select();
  });
  document.addEventListener("click", (event) => {
    if (event.target.matches("input[data-select-all]")) event.target.select();
  });
})();
