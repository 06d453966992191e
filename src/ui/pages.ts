/**
 * The pages: each route's model gathered and its view rendered inside the shell. Reads only;
 * the writes are in actions.ts.
 */
import type { UiContext } from './context.js';
import { decodePart, type Html, html } from './html.js';
import { notice, type PageFrame, page, type ViewId } from './layout.js';
import type { ServiceStatus } from './runtime-service.js';
import { capturedModel, capturedView } from './views/captured.js';
import { type HostsReports, hostsView } from './views/hosts.js';
import { memoryModel, memoryQuery, memoryView } from './views/memory.js';
import { type EditProblem, memoryDetail, memoryDetailView } from './views/memory-detail.js';
import { observationsModel, observationsView, rangeOf } from './views/observations.js';
import { handoffView, runtimeModel, runtimeRangeOf, runtimeView } from './views/runtime.js';
import { sessionsModel, sessionsView } from './views/sessions.js';
import { subscriptionsSection } from './views/subscriptions.js';
import { wakeupModel, wakeupView } from './views/wakeup.js';

export interface Rendered {
  status: number;
  body: Html;
}

export interface PageDeps {
  context: UiContext;
  csrf: string;
  hosts: HostsReports;
  /** The runtime service's listing (the latest the pages were told of, or asked now). */
  service: () => Promise<ServiceStatus>;
}

function frame(deps: PageDeps, view: ViewId | undefined, title: string): PageFrame {
  return {
    view,
    title,
    csrf: deps.csrf,
    home: deps.context.home,
    project: deps.context.project,
    version: deps.context.version,
  };
}

/** The notice a redirect after a write asks for (`?done=…`). */
function doneNotice(params: URLSearchParams, csrf: string): Html | undefined {
  const done = params.get('done');
  const name = params.get('name') ?? '';
  switch (done) {
    case 'saved':
      return notice('ok', 'Saved. The file on disk is updated.');
    case 'unchanged':
      return notice('ok', 'Nothing changed: the file is as it was.');
    case 'accepted':
      return notice(
        'ok',
        `Accepted “${name}”: it counts as any memory now (and cautions, if it names a call).`,
      );
    case 'rejected':
      return notice(
        'ok',
        `Rejected “${name}”: forgotten into memory/.trash/ (restorable from the Memory view).`,
      );
    case 'restored':
      return notice('ok', 'Restored, with its MEMORY.md line.');
    case 'forgot':
      return notice(
        'ok',
        html`Forgot “${name}”: its file is in <code>memory/.trash/</code>.
<form method="post" action="/memory/restore" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="name" value="${params.get('trashed') ?? name}"><button type="submit">Undo</button></form>`,
      );
    default:
      return undefined;
  }
}

export async function renderPage(
  deps: PageDeps,
  path: string,
  params: URLSearchParams,
): Promise<Rendered | undefined> {
  const { context } = deps;
  const now = context.clock();
  const done = doneNotice(params, deps.csrf);
  const ok = (view: ViewId, title: string, body: Html): Rendered => ({
    status: 200,
    body: page(frame(deps, view, title), body, done),
  });
  if (path === '/' || path === '/wakeup')
    return ok('wakeup', 'Wake-up', wakeupView(await wakeupModel(context), now));
  if (path === '/memory')
    return ok('memory', 'Memory', memoryView(memoryModel(context, memoryQuery(params)), deps.csrf, now));
  if (path === '/captured')
    return ok('captured', 'Captured', capturedView(capturedModel(context), deps.csrf, now));
  const memory = /^\/memory\/m\/([^/]+)$/.exec(path);
  if (memory) {
    const detail = memoryDetail(context, decodePart(memory[1]!));
    return ok('memory', detail.file, memoryDetailView(detail, deps.csrf, now));
  }
  if (path === '/observations')
    return ok(
      'observations',
      'Observations',
      observationsView(observationsModel(context, rangeOf(params.get('range')), params.get('q') ?? ''), now),
    );
  if (path === '/sessions') return ok('sessions', 'Sessions', sessionsView(sessionsModel(context), now));
  if (path === '/runtime')
    return ok(
      'runtime',
      'Runtime',
      runtimeView(await runtimeModel(context, runtimeRangeOf(params.get('range')), deps.service()), now),
    );
  // The live section alone: an open Runtime page fetches it when the service's listing changes.
  if (path === '/runtime/subscriptions')
    return ok(
      'runtime',
      'Live subscriptions',
      html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/runtime">Runtime</a> › live subscriptions</nav>
<h1>Live subscriptions</h1>
${subscriptionsSection(await deps.service(), now)}`,
    );
  const handoff = /^\/runtime\/handoff\/([^/]+)$/.exec(path);
  if (handoff) {
    const id = decodePart(handoff[1]!);
    const body = handoffView(context, id, now);
    if (body) return ok('runtime', `Handoff ${id}`, body);
    return {
      status: 404,
      body: page(
        frame(deps, 'runtime', 'No such handoff'),
        html`<h1>No handoff <code>${id}</code></h1><p>It is not in <code>${context.ledger}/handoffs/</code>. <a href="/runtime">Back to the runtime</a>.</p>`,
      ),
    };
  }
  if (path === '/hosts') {
    const model = await deps.hosts.get(params.get('check') === '1');
    return ok('hosts', 'Hosts', hostsView(model, context.project, now));
  }
  return undefined;
}

/** The memory page again, with the user's text and why it was not saved. */
export function memoryAgain(deps: PageDeps, file: string, problem: EditProblem): Html {
  const detail = memoryDetail(deps.context, file);
  return page(
    frame(deps, 'memory', detail.file),
    memoryDetailView(detail, deps.csrf, deps.context.clock(), problem),
  );
}

/** A refusal or failure as a page (it names the fix when there is one). */
export function errorPage(deps: PageDeps, status: number, message: string, hint?: string): Html {
  return page(
    frame(deps, undefined, `Error ${status}`),
    html`<h1>${status === 404 ? 'Not found' : 'Could not do that'}</h1><div class="notice notice-error" role="alert"><p>${message}</p>${
      hint ? html`<p>Fix: ${hint}</p>` : ''
    }</div><p><a href="/">Back to the wake-up view</a></p>`,
  );
}

/** The sign-in page (the only one served without the token off loopback). */
export function loginPage(problem?: string): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in · firstlight</title></head>
<body><main>
<h1>firstlight: sign in</h1>
<p>This page is served beyond loopback, so it asks for the server's token (the value of <code>FIRSTLIGHT_TOKEN</code> it was started with).</p>
${problem ? html`<p role="alert"><strong>${problem}</strong></p>` : ''}
<form method="post" action="/login"><label for="token">Token</label> <input id="token" name="token" type="password" autocomplete="current-password" required> <button type="submit">Sign in</button></form>
</main></body></html>`;
}
