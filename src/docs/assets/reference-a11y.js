/*
 * Repairs, in the browser, the accessibility faults of Scalar's own interface (1.40) on the reference pages
 * (docs/decisions.md "Reference pages pass axe-core"). Scalar renders with Vue and re-renders often, so each
 * repair is idempotent and re-applied, after every change, to what changed. Served by the app from 'self' (the
 * pages' CSP), loaded after Scalar's script.
 */
(function () {
  'use strict';

  /** Sets an attribute only when it differs, so a repair causes no further mutation. */
  function set(el, name, value) {
    if (el.getAttribute(name) !== value) el.setAttribute(name, value);
  }

  function repair(root) {
    // Sidebar group buttons carry aria-selected, which a button may not have: the current item is aria-current.
    root.querySelectorAll('button[aria-selected]:not([role])').forEach(function (b) {
      var selected = b.getAttribute('aria-selected') === 'true';
      b.removeAttribute('aria-selected');
      if (selected) set(b, 'aria-current', 'true');
      else if (b.hasAttribute('aria-current')) b.removeAttribute('aria-current');
    });
    // Sidebar lists wrap each <li> in a draggable <div>: the <div> is the list item, the <li> only its content.
    root.querySelectorAll('li').forEach(function (li) {
      var parent = li.parentElement;
      if (!parent || /^(UL|OL|MENU)$/.test(parent.tagName) || parent.hasAttribute('role')) return;
      var list = parent.parentElement;
      if (parent.tagName === 'DIV' && list && /^(UL|OL)$/.test(list.tagName)) set(parent, 'role', 'listitem');
      set(li, 'role', 'none');
    });
    // The search button's only text is hidden from assistive technology; role="search" is a landmark, not a button.
    root.querySelectorAll('button[role="search"]').forEach(function (b) {
      b.removeAttribute('role');
      if (!b.hasAttribute('aria-label')) set(b, 'aria-label', 'Search');
    });
    // The client picker's "more clients" button sits inside its tablist: it is one more tab of that list.
    root.querySelectorAll('[role="tablist"] button:not([role])').forEach(function (b) {
      set(b, 'role', 'tab');
    });
    // Code editors (the request client's fields) have no name: the placeholder or the row's key names them.
    root
      .querySelectorAll('.cm-content[role="textbox"]:not([aria-label]):not([aria-labelledby])')
      .forEach(function (box) {
        var placeholder = box.querySelector('.cm-placeholder');
        var row = box.closest('.group, tr, [role="row"]');
        var key = row && row.firstElementChild && row.firstElementChild.textContent.trim();
        var name = (placeholder && placeholder.textContent.trim()) || key || 'Value';
        set(box, 'aria-label', name.slice(0, 80));
      });
    // Scrolling code blocks and endpoint lists must be reachable from the keyboard.
    root.querySelectorAll('pre > code, ul.endpoints').forEach(function (el) {
      if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '0');
    });
  }

  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      repair(document);
    });
  }

  new MutationObserver(schedule).observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ['aria-selected', 'role'],
  });
  schedule();
})();
