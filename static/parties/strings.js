// The words the scripts show, in the page's language: templates/parties/_js_strings.html
// renders them (translated by Django) as JSON in <script type="application/json"
// id="js-strings">, and loads this file right after it, so that it runs before every other
// script of ours (they are all deferred, and run in the page's order).
//
// buncoT(key, english, values): the text of `key`, or `english` when the page has no such key
// (a page without the element still reads, in English). Named placeholders, as in Python:
// "Table %(number)s" with {number: 3}.
//
// buncoTn(key, n, one, other, values): the same for a count, `n` among the values as "count".
// The page gives each plural as its three forms for 0, 1 and 2 or more (Django picks each by
// the language's own rule: French says "0 joueur", English "0 players"); this holds for
// English, Spanish and French, whose words for 2 and any count above are one form.
(function () {
  let strings = null;
  function all() {
    if (strings) return strings;
    strings = {};
    const element = document.getElementById("js-strings");
    try { if (element) strings = JSON.parse(element.textContent) || {}; } catch (e) { /* English */ }
    return strings;
  }
  function fill(text, values) {
    if (!values) return text;
    return text.replace(/%\((\w+)\)s/g, (whole, name) => (name in values ? String(values[name]) : whole));
  }
  window.buncoT = function (key, english, values) {
    const text = all()[key];
    return fill(typeof text === "string" ? text : english, values);
  };
  window.buncoTn = function (key, n, one, other, values) {
    const forms = all()[key];
    const text = Array.isArray(forms) && forms.length === 3 ? forms[n === 0 ? 0 : n === 1 ? 1 : 2] : (n === 1 ? one : other);
    return fill(text, { ...values, count: n });
  };
})();
