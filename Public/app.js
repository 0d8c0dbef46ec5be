// Mailroom's optional script. Every page works the same without it: it only adds to forms and
// links that already work. What it adds: the list follows changes live (Server-Sent Events)
// without losing edit mode, ticks, a pending confirmation, focus, scroll or typed text; counts
// that follow the ticks for everyone, screen readers included; shift-click ranges; keyboard
// shortcuts; and times in the browser's own time zone. No framework, no build step.
(() => {
  'use strict';

  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

  // MARK: Times in the browser's time zone

  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n) => String(n).padStart(2, '0');

  /** "16:40" today, "Nov 30" this year, "Nov 30, 2025" before: as the server writes them. */
  function shortDate(date, now) {
    if (date.toDateString() === now.toDateString()) return `${two(date.getHours())}:${two(date.getMinutes())}`;
    const day = `${months[date.getMonth()]} ${date.getDate()}`;
    return date.getFullYear() === now.getFullYear() ? day : `${day}, ${date.getFullYear()}`;
  }

  /** Each row's content as the server wrote it, before its times were made local: what a fresh
   * page is compared with. */
  function remember(root) {
    for (const main of $$('.row-main', root)) main.dataset.server = main.innerHTML;
  }

  /** "Nov 30, 2026 at 16:40 CET": the message page's full date, in the browser's time zone. */
  function fullDate(date) {
    const zone = new Intl.DateTimeFormat('en', { timeZoneName: 'short' }).formatToParts(date)
      .find((part) => part.type === 'timeZoneName')?.value;
    return `${months[date.getMonth()]} ${date.getDate()}, ${date.getFullYear()} at `
      + `${two(date.getHours())}:${two(date.getMinutes())}${zone ? ` ${zone}` : ''}`;
  }

  /** List rows get short dates; a time marked `data-style="full"` (the message page's) stays full. */
  function localTimes(root) {
    const now = new Date();
    for (const time of $$('time[datetime]', root)) {
      const date = new Date(time.getAttribute('datetime'));
      if (Number.isNaN(date.getTime())) continue;
      time.textContent = time.dataset.style === 'full' ? fullDate(date) : shortDate(date, now);
      time.title = date.toLocaleString();
    }
  }

  // MARK: Ticks and the counts that follow them

  const editForm = $('#edit-form');
  const boxes = () => $$('#messages input[type=checkbox][name=selected]');

  /** Names, title and states that say how many rows are ticked, from the live checkboxes. */
  function followTicks() {
    if (!editForm || $('input[name=all]', editForm)) return;  // "all N" is counted by the server
    const count = boxes().filter((box) => box.checked).length;
    for (const box of boxes()) box.closest('li')?.classList.toggle('selected', box.checked);
    const heading = $('#selection-count');
    const text = `${count.toLocaleString('en')} Selected`;
    if (heading && heading.textContent !== text) heading.textContent = text;
    document.title = document.title.replace(/^[\d,]+ Selected/, text);
    for (const button of $$('.toolbar .bulk', editForm)) {
      button.setAttribute('aria-disabled', count === 0 ? 'true' : 'false');
    }
    const label = $('#action-delete .live-count')?.dataset.label;
    const named = $('#action-delete .server-count');
    if (label && named) named.textContent = `${label} (${count.toLocaleString('en')})`;
  }

  let lastTicked = null;

  /** Shift-click ticks every row from the last one clicked to this one, as that one now is. */
  function tickRange(to) {
    const all = boxes();
    const from = lastTicked && all.includes(lastTicked) ? lastTicked : to;
    const [a, b] = [all.indexOf(from), all.indexOf(to)].sort((x, y) => x - y);
    for (const box of all.slice(a, b + 1)) box.checked = to.checked;
  }

  if (editForm) {
    editForm.addEventListener('click', (event) => {
      const box = event.target.closest?.('input[type=checkbox][name=selected]');
      if (!box) return;
      if (event.shiftKey) tickRange(box);
      lastTicked = box;
    });
    editForm.addEventListener('change', followTicks);
  }

  // MARK: The live list

  const list = $('#messages');
  let refreshing = null;
  let again = false;

  // Set once the page is being left (a form posted, a link followed): what it would fetch or
  // reload then could only get in the way of where the person is going.
  let leaving = false;
  window.addEventListener('beforeunload', () => { leaving = true; });
  document.addEventListener('submit', () => { leaving = true; }, true);

  /** Asks for the page again and brings what changed into this one. */
  function refresh() {
    if (leaving) return;
    if (refreshing) { again = true; return; }
    refreshing = fetch(location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then((response) => (response.ok ? response.text() : null))
      .then((html) => { if (html && !leaving) patch(new DOMParser().parseFromString(html, 'text/html')); })
      .catch(() => {})
      .finally(() => {
        refreshing = null;
        if (again) { again = false; refresh(); }
      });
  }

  /** The first row at least partly on screen, and where it is: kept there while rows change. */
  function anchor() {
    for (const row of $$('#messages > li')) {
      const top = row.getBoundingClientRect().top;
      if (row.getBoundingClientRect().bottom > 0) return { row, top };
    }
    return null;
  }

  function patch(fresh) {
    const next = $('#messages', fresh);
    if (!list || !next || list.classList.contains('editing') !== next.classList.contains('editing')) {
      // The list appeared, emptied or changed its kind: nothing to patch row by row. The page
      // is loaded again, unless someone is typing, who is not interrupted (it is stale till then).
      if (!!list !== !!next || (list && next)) {
        if (isTyping(document.activeElement)) stale = true; else location.reload();
      }
      return;
    }
    list.dataset.revision = next.dataset.revision || list.dataset.revision;
    // At the very top, new mail is seen arriving; lower down, what is on screen stays put.
    const kept = window.scrollY > 0 ? anchor() : null;
    const focused = document.activeElement;
    const focusedRow = focused?.closest?.('#messages > li');
    const focusIndex = focusedRow ? $$('#messages > li').indexOf(focusedRow) : -1;
    const old = new Map($$('#messages > li').map((row) => [row.dataset.id, row]));
    const allSelected = !!(editForm && $('input[name=all]', editForm));
    let previous = null;
    const seen = new Set();
    for (const incoming of $$(':scope > li', next)) {
      const id = incoming.dataset.id;
      seen.add(id);
      let row = old.get(id);
      if (row) {
        // Only what the server says about the message: the ticks, buttons and focus stay.
        const main = $('.row-main', row);
        const freshMain = $('.row-main', incoming);
        if (main && freshMain && main.dataset.server !== freshMain.innerHTML) {
          main.innerHTML = freshMain.innerHTML;
          main.dataset.server = freshMain.innerHTML;
          localTimes(main);
        }
        const ticked = $('input[type=checkbox]', row)?.checked;
        row.className = incoming.className;
        if (ticked !== undefined) row.classList.toggle('selected', ticked);
        for (const button of $$('button[name=move-up], button[name=move-down]', row)) {
          const twin = $(`button[name="${button.name}"]`, incoming);
          if (twin) button.disabled = twin.disabled;
        }
      } else {
        row = document.importNode(incoming, true);
        remember(row);
        const box = $('input[type=checkbox]', row);
        // New mail is shown, never swept into a selection made before it existed.
        if (box && (allSelected || !box.checked)) { box.checked = false; row.classList.remove('selected'); }
        localTimes(row);
      }
      const place = previous ? previous.nextElementSibling : list.firstElementChild;
      if (place !== row) list.insertBefore(row, place);
      previous = row;
    }
    let lostFocus = false;
    for (const [id, row] of old) {
      if (seen.has(id)) continue;
      if (row === focusedRow) lostFocus = true;
      row.remove();
    }
    if (lostFocus) {
      // The row that had the keyboard is gone: the nearest one left takes it.
      const rows = $$('#messages > li');
      const index = Math.min(Math.max(focusIndex, 0), rows.length - 1);
      if (index >= 0) focusRow(rows[index]);
    }
    const pager = $('#pager');
    const freshPager = $('#pager', fresh);
    if (pager && !freshPager) pager.remove();
    else if (freshPager && !pager) (editForm || list).after(document.importNode(freshPager, true));
    else if (pager && freshPager && pager.innerHTML !== freshPager.innerHTML && !pager.contains(document.activeElement)) {
      pager.innerHTML = freshPager.innerHTML;
    }
    for (const selector of ['.bar-context', '#empty']) {
      const mine = $(selector);
      const theirs = $(selector, fresh);
      if (mine && theirs && mine.textContent !== theirs.textContent && !mine.contains(document.activeElement)) {
        mine.innerHTML = theirs.innerHTML;
      }
    }
    updateSidebar(fresh);
    if (kept && kept.row.isConnected) window.scrollBy(0, kept.row.getBoundingClientRect().top - kept.top);
    if (focused && focused.isConnected && document.activeElement !== focused) focused.focus({ preventScroll: true });
    followTicks();
  }

  /** The sidebar's unread numbers, from a fresh page or from an event's counts. */
  function updateSidebar(source) {
    const counts = new Map();
    if (Array.isArray(source)) {
      // Trash shows no unread number (the server leaves it out too).
      for (const box of source) if (box.id !== 'trash') counts.set(box.id, box.unread);
    } else {
      for (const link of $$('a.mailbox-link[data-mailbox]', source)) {
        counts.set(link.dataset.mailbox, Number(($('.unread-count', link)?.textContent || '0').replace(/,/g, '')));
      }
    }
    for (const link of $$('a.mailbox-link[data-mailbox]')) {
      if (!counts.has(link.dataset.mailbox)) continue;
      const unread = counts.get(link.dataset.mailbox);
      let badge = $('.unread-count', link);
      let spoken = $('.unread-count + .visually-hidden', link);
      if (unread > 0) {
        if (!badge) {
          badge = document.createElement('span');
          badge.className = 'unread-count';
          spoken = document.createElement('span');
          spoken.className = 'visually-hidden';
          spoken.textContent = ' unread';
          link.append(badge, spoken);
        }
        badge.textContent = unread.toLocaleString('en');
      } else {
        badge?.remove();
        spoken?.remove();
      }
    }
  }

  // One stream per visible page. A browser opens at most six connections to a server over
  // HTTP/1.1, and a stream holds one for as long as it is open: streams left open by pages in
  // the back/forward cache or in background tabs would soon leave none for pages themselves.
  // A hidden page lets go of its stream, and asks for itself again when it is shown.
  let events = null;
  let stale = false;

  function connect() {
    if (events || !('EventSource' in window) || !$('#mailboxes')) return;
    events = new EventSource('/events');
    // A sign for tests and for the curious: the list is live from now on.
    events.addEventListener('open', () => { document.documentElement.dataset.live = 'open'; });
    events.addEventListener('error', () => { document.documentElement.dataset.live = 'reconnecting'; });
    events.addEventListener('change', (event) => {
      try { updateSidebar(JSON.parse(event.data).mailboxes || []); } catch { /* the page is asked for anyway */ }
      if (list) refresh();
    });
    events.addEventListener('reset', () => { if (list) refresh(); });
    // A commit between this page being made and its stream opening: the stream starts after it.
    events.addEventListener('ready', (event) => {
      if (list && Number(event.lastEventId) > Number(list.dataset.revision || 0)) refresh();
    });
  }

  function disconnect() {
    if (!events) return;
    events.close();
    events = null;
    stale = true;
    document.documentElement.dataset.live = 'closed';
  }

  function resume() {
    connect();
    if (stale && list) refresh();
    stale = false;
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') resume(); else disconnect();
  });
  window.addEventListener('pagehide', disconnect);
  window.addEventListener('pageshow', (event) => {
    // Back from the back/forward cache: the page is in use again.
    if (event.persisted) { leaving = false; resume(); }
  });
  if (document.visibilityState !== 'hidden') connect(); else stale = true;

  // MARK: The keyboard

  const rows = () => $$('#messages > li');

  function focusRow(row) {
    if (!row) return;
    const target = $('input[type=checkbox]', row) || $('a.row-link', row) || row;
    if (target === row) row.tabIndex = -1;
    target.focus();
    target.scrollIntoView({ block: 'nearest' });
  }

  function currentRow() {
    return document.activeElement?.closest?.('#messages > li') || null;
  }

  function move(step) {
    const all = rows();
    if (!all.length) return;
    const index = all.indexOf(currentRow());
    focusRow(all[index < 0 ? 0 : Math.min(Math.max(index + step, 0), all.length - 1)]);
  }

  /** Posts what the toolbar would with only `row` ticked, from outside edit mode, keeping the
   * page's search and place as the page's own forms do. False when the page carries no form
   * token to post with. */
  function postForRow(fields) {
    const csrf = $('input[name=csrf]')?.value;
    if (!csrf) return false;
    const form = document.createElement('form');
    form.method = 'post';
    form.action = location.pathname;
    form.hidden = true;
    const kept = {};
    for (const [name, value] of new URLSearchParams(location.search)) {
      if (['q', 'older', 'newer', 'at'].includes(name)) kept[name] = value;
    }
    for (const [name, value] of Object.entries({ csrf, ...kept, ...fields })) {
      const input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = value;
      form.append(input);
    }
    document.body.append(form);
    form.submit();
    return true;
  }

  /** The mailbox this page lists, by the sidebar's current link. */
  function currentMailbox() {
    return $('a.mailbox-link[aria-current=page]')?.dataset.mailbox || '';
  }

  function press(selector) {
    const button = $(selector);
    if (!button) return false;
    button.click();
    return true;
  }

  const shortcuts = [
    ['j', 'Next message'],
    ['k', 'Previous message'],
    ['x', 'Tick or untick the message (in edit mode; outside it, start editing with it ticked)'],
    ['Shift+X', 'Tick every message from the last one ticked'],
    ['o', 'Open the message (Enter on a link opens it too)'],
    ['e', 'Archive the ticked messages, or this one'],
    ['#', 'Delete the ticked messages, or this one (to Trash, with Undo)'],
    ['u', 'Undo'],
    ['/', 'Search'],
    ['Esc', 'Done'],
    ['?', 'This list'],
  ];

  function showShortcuts() {
    let dialog = $('#shortcuts');
    if (!dialog) {
      dialog = document.createElement('dialog');
      dialog.id = 'shortcuts';
      dialog.setAttribute('aria-labelledby', 'shortcuts-title');
      const heading = document.createElement('h2');
      heading.id = 'shortcuts-title';
      heading.textContent = 'Keyboard shortcuts';
      const table = document.createElement('dl');
      for (const [key, what] of shortcuts) {
        const term = document.createElement('dt');
        const kbd = document.createElement('kbd');
        kbd.textContent = key;
        term.append(kbd);
        const detail = document.createElement('dd');
        detail.textContent = what;
        table.append(term, detail);
      }
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'button';
      close.textContent = 'Close';
      close.addEventListener('click', () => dialog.close());
      dialog.append(heading, table, close);
      document.body.append(dialog);
    }
    if (!dialog.open) dialog.showModal();
  }

  function isTyping(target) {
    return target?.closest?.('input:not([type=checkbox]):not([type=radio]):not([type=submit]):not([type=button]), textarea, select, [contenteditable=""], [contenteditable=true]');
  }

  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
    if ($('#shortcuts')?.open) return;  // the dialog has the keyboard (Esc closes it)
    const row = currentRow();
    const id = row?.dataset.id;
    const editing = !!editForm;
    let handled = true;
    switch (event.key) {
      case 'j': move(1); break;
      case 'k': move(-1); break;
      case 'x':
      case 'X': {
        if (!row) { handled = false; break; }
        const box = $('input[type=checkbox]', row);
        if (box) {
          if (event.shiftKey) {
            box.checked = true;
            tickRange(box);
          } else {
            box.checked = !box.checked;
          }
          lastTicked = box;
          followTicks();
        } else if (!editing && id && $('#edit')?.href) {
          location.href = `${$('#edit').href}&selected=${encodeURIComponent(id)}`;
        }
        break;
      }
      case 'o':
        // Enter is left alone: on a row's link it opens the message, and in the edit form it
        // brings the page up to date with the ticks, as it does without the script.
        if (!id) { handled = false; break; }
        location.href = `/messages/${encodeURIComponent(id)}`;
        break;
      case 'e':
        // Archive is offered everywhere but in Archive and Trash.
        if (editing && boxes().some((box) => box.checked)) handled = press('#action-archive');
        else if (id && !editing && !['archive', 'trash'].includes(currentMailbox())) {
          handled = postForRow({ mode: 'active', selected: id, action: 'archive' });
        } else handled = false;
        break;
      case '#':
        if (editing && boxes().some((box) => box.checked)) handled = press('#action-delete');
        else if (id && editing) handled = press(`button[name=delete][value="${CSS.escape(id)}"]`);
        else if (row?.classList.contains('confirming')) handled = press('li.confirming form.confirm button[type=submit]');
        // Outside edit mode a delete asks first, as the row's own Delete does.
        else if (row) handled = press(`#${CSS.escape(row.id)} a.row-delete`);
        else handled = false;
        break;
      case 'u': handled = press('#undo'); break;
      case '/': {
        const search = $('#q');
        if (search) { search.focus(); search.select(); } else handled = false;
        break;
      }
      case 'Escape': {
        const done = $('#done');
        if (done) location.href = done.href; else handled = false;
        break;
      }
      case '?': showShortcuts(); break;
      default: handled = false;
    }
    if (handled) event.preventDefault();
  });

  remember(document);
  localTimes(document);
  followTicks();
})();
