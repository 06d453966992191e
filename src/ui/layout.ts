import { type Html, html } from './html.js';

/** The views, in the order the navigation lists them. */
export const VIEWS = [
  { id: 'wakeup', path: '/wakeup', label: 'Wake-up' },
  { id: 'memory', path: '/memory', label: 'Memory' },
  { id: 'captured', path: '/captured', label: 'Captured' },
  { id: 'observations', path: '/observations', label: 'Observations' },
  { id: 'sessions', path: '/sessions', label: 'Sessions' },
  { id: 'runtime', path: '/runtime', label: 'Runtime' },
  { id: 'hosts', path: '/hosts', label: 'Hosts' },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];

export const VIEW_IDS: readonly ViewId[] = VIEWS.map((v) => v.id);

/** What every page needs besides its own content. */
export interface PageFrame {
  /** The view the navigation marks current; none on an error page, which is no view (issue 38). */
  view: ViewId | undefined;
  title: string;
  /** The form token every write carries (see guard.ts). */
  csrf: string;
  home: string;
  project: string;
  version: string;
}

/**
 * The page shell: a skip link, a banner with the views as navigation (the current one marked
 * with aria-current), a polite live region the client announces updates in, the main landmark,
 * and a footer. One stylesheet and one deferred script, both served by this server.
 */
export function page(frame: PageFrame, body: Html, notice?: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="csrf-token" content="${frame.csrf}">
<meta name="fl-view" content="${frame.view ?? ''}">
<title>${frame.title} · firstlight</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/ui.css">
<script src="/assets/ui.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="banner">
<p class="brand"><span aria-hidden="true">◐</span> firstlight</p>
<nav aria-label="Views"><ul>
${VIEWS.map(
  (v, i) =>
    html`<li><a href="${v.path}" data-key="${i + 1}"${v.id === frame.view ? html` aria-current="page"` : ''}>${v.label}</a></li>`,
)}
</ul></nav>
<p class="where"><span title="home">${frame.home}</span> · <span title="project">${frame.project}</span></p>
</header>
<div id="live" class="live" role="status" aria-live="polite">${notice ?? ''}</div>
<main id="main" tabindex="-1">
${body}
</main>
<footer class="footer">
<p>firstlight ${frame.version} · <a href="/assets/keys.html">Keyboard shortcuts</a> · updates: <span id="live-state">static (script not loaded)</span></p>
</footer>
</body>
</html>
`;
}

/** A notice banner: `ok` for a change made, `error` for a refusal with its fix. */
export function notice(kind: 'ok' | 'error', text: Html | string): Html {
  return html`<div class="notice notice-${kind}">${text}</div>`;
}
