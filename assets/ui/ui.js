// firstlight ui: the page's only script, plain JavaScript with no build step. Without it every
// page still works (links, forms, server-rendered HTML); with it, a view updates in place when
// its files change (server-sent events), the runtime service's live subscriptions follow the
// service, memory search follows the typing, and single keys move between views (see
// /assets/keys.html).
(() => {
  const view = document.querySelector('meta[name="fl-view"]')?.content ?? '';
  const state = document.getElementById('live-state');
  const live = document.getElementById('live');
  let refreshing = false;
  let again = false;
  let refreshes = 0;

  const setState = (text) => {
    if (state) state.textContent = text;
  };

  /** Says something to screen readers (and shows it) in the polite live region. */
  const announce = (text, kind = 'ok') => {
    if (!live) return;
    const p = document.createElement('p');
    p.className = `notice notice-${kind}`;
    p.textContent = text;
    live.replaceChildren(p);
  };

  /** A form the user is typing in is never replaced under their hands. */
  const dirty = () => document.querySelector('form[data-dirty="true"]') !== null;

  /**
   * Under a form the user is typing in, a change is said only when the file the form edits
   * changed (its `base` hash differs in the server's current rendering), and as a caution, not
   * a success: after a refused edit, a green "files changed" above the red "not saved" was
   * false (issue 38). A form without a base says any change.
   */
  const CHANGED = 'The files behind this page changed. Save or reload to see the new version.';
  const baseOf = (root, selector) => root.querySelector(`${selector} input[name="base"]`)?.value;
  async function sayIfChangedUnderForm(doc) {
    const mine = baseOf(document, 'form[data-dirty="true"]');
    if (mine === undefined) return announce(CHANGED, 'warn');
    const current = doc ?? (await fetchPage(location.href).catch(() => undefined));
    if (current && baseOf(current, 'form[data-guard-dirty]') !== mine) announce(CHANGED, 'warn');
  }
  const counted = () => {
    refreshes += 1;
    document.body.dataset.refreshes = String(refreshes);
  };

  const openDetails = () =>
    [...document.querySelectorAll('main details')].map((d, i) => (d.open ? i : -1)).filter((i) => i >= 0);

  async function fetchPage(url) {
    const response = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
    if (!response.ok) throw new Error(`${response.status}`);
    return new DOMParser().parseFromString(await response.text(), 'text/html');
  }

  /** Replaces <main> with the server's current rendering, keeping open details, scroll and focus. */
  async function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    if (dirty()) {
      await sayIfChangedUnderForm();
      counted();
      return;
    }
    // Someone typing a search: refresh its results, never the field under their hands.
    const searching = document.activeElement?.closest?.('form[data-live-search]');
    if (searching && typeof searching.runSearch === 'function') {
      await searching.runSearch();
      refreshes += 1;
      document.body.dataset.refreshes = String(refreshes);
      return;
    }
    refreshing = true;
    try {
      const doc = await fetchPage(location.href);
      // The user may have started typing while the page was on its way: keep what they typed.
      if (dirty()) {
        await sayIfChangedUnderForm(doc);
        counted();
        return;
      }
      const next = doc.querySelector('main');
      const current = document.querySelector('main');
      if (!next || !current) return;
      const open = openDetails();
      const focused = document.activeElement?.id;
      const scroll = window.scrollY;
      current.replaceWith(next);
      const details = [...next.querySelectorAll('details')];
      for (const i of open) if (details[i]) details[i].open = true;
      if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
      window.scrollTo(0, scroll);
      document.title = doc.title;
      refreshes += 1;
      document.body.dataset.refreshes = String(refreshes);
      // UTC, as every time the server renders (issue 38: this one was the browser's local time).
      setState(`live, updated ${new Date().toISOString().slice(11, 19)} UTC`);
      wire(next);
    } catch (error) {
      setState(`live (last update failed: ${error.message})`);
    } finally {
      refreshing = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  }

  /** The live subscriptions section alone, fetched again when the service's listing changed. */
  let serviceAsked = 0;
  async function refreshSubscriptions() {
    if (!document.querySelector('section[data-testid="service"]')) return;
    const mine = ++serviceAsked;
    try {
      const doc = await fetchPage('/runtime/subscriptions');
      const next = doc.querySelector('section[data-testid="service"]');
      // An answer overtaken by a later one is stale.
      if (!next || mine !== serviceAsked) return;
      document.querySelector('section[data-testid="service"]')?.replaceWith(next);
      const updates = Number(document.body.dataset.serviceUpdates ?? '0') + 1;
      document.body.dataset.serviceUpdates = String(updates);
    } catch (error) {
      setState(`live (the subscriptions did not update: ${error.message})`);
    }
  }

  function connect() {
    if (!('EventSource' in window)) {
      setState('static (this browser has no EventSource)');
      return;
    }
    const events = new EventSource(`/events?view=${encodeURIComponent(view)}`);
    events.addEventListener('ready', () => {
      setState('live');
      document.body.dataset.live = 'ready';
    });
    events.addEventListener('change', (event) => {
      try {
        const { views } = JSON.parse(event.data);
        if (Array.isArray(views) && views.includes(view)) void refresh();
      } catch {
        // a malformed message changes nothing
      }
    });
    events.addEventListener('subscriptions', () => void refreshSubscriptions());
    events.addEventListener('error', () => setState('reconnecting…'));
  }

  /** Memory search: results follow the typing (the form still submits without the script). */
  function liveSearch(form) {
    let timer;
    let asked = 0;
    const run = async () => {
      const url = `${form.action}?${new URLSearchParams(new FormData(form)).toString()}`;
      const mine = ++asked;
      try {
        const doc = await fetchPage(url);
        if (mine !== asked) return;
        const next = doc.querySelector('section[aria-labelledby="results-heading"]');
        const current = document.querySelector('section[aria-labelledby="results-heading"]');
        if (next && current) current.replaceWith(next);
        history.replaceState(null, '', url);
      } catch (error) {
        setState(`search failed: ${error.message}`);
      }
    };
    form.runSearch = run;
    form.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(run, 200);
    });
    form.addEventListener('change', () => {
      clearTimeout(timer);
      void run();
    });
  }

  function wire(root) {
    for (const form of root.querySelectorAll('form[data-guard-dirty]')) {
      form.addEventListener('input', () => {
        form.dataset.dirty = 'true';
      });
      form.addEventListener('submit', () => {
        form.dataset.dirty = 'false';
      });
    }
    for (const form of root.querySelectorAll('form[data-live-search]')) liveSearch(form);
  }

  /** 1–6 open the views, / focuses the search, ? opens the key list; never while typing. */
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable="true"]'))
      return;
    if (event.key === '/') {
      const search = document.querySelector('[data-key="/"]');
      if (search) {
        event.preventDefault();
        search.focus();
      }
      return;
    }
    if (event.key === '?') {
      location.href = '/assets/keys.html';
      return;
    }
    const link = document.querySelector(`nav a[data-key="${CSS.escape(event.key)}"]`);
    if (link) location.href = link.getAttribute('href');
  });

  wire(document);
  connect();
})();
