/**
 * Hosts: what `firstlight doctor` says, per installed host and scope, with the fix for each
 * failing check. Doctor starts each configured server to call bootstrap_session, so a report is
 * kept until the install files change (the live watcher drops it) or the user asks again.
 */
import {
  type DoctorCheck,
  type DoctorReport,
  doctor,
  type HostDiagnosis,
  hostState,
  probeServer,
} from '../../host/index.js';
import type { UiContext } from '../context.js';
import { type Html, html, timeTag } from '../html.js';

export interface HostsModel {
  report: DoctorReport;
  at: string;
}

/** Doctor's last report, kept until the install files change or the user asks again. */
export class HostsReports {
  private kept: Promise<HostsModel> | undefined;

  constructor(private readonly context: UiContext) {}

  /** Forgets the kept report (the install files changed). */
  drop(): void {
    this.kept = undefined;
  }

  get(fresh: boolean): Promise<HostsModel> {
    if (!fresh && this.kept) return this.kept;
    const context = this.context;
    const model = doctor({
      project: context.project,
      home: context.home,
      userHome: context.userHome,
      env: context.env,
      platform: process.platform,
      probe: (server) => probeServer(server, { env: context.env, cwd: context.project }),
    }).then((report) => ({ report, at: context.clock().toISOString() }));
    this.kept = model;
    // A failed run is not kept: the next request tries again.
    model.catch(() => {
      if (this.kept === model) this.kept = undefined;
    });
    return model;
  }
}

/** The command or step that makes a failing check pass. */
export function fixFor(check: DoctorCheck, host: HostDiagnosis, project: string): string {
  const install = `firstlight install ${host.host} --scope ${host.scope}${host.scope === 'project' ? ` --project ${project}` : ''}`;
  switch (check.check) {
    case 'server':
      return `run the configured server command by hand to see why it does not answer (the detail names it); if firstlight moved, re-run \`${install}\` to write the current command`;
    case 'trust':
      return `${check.detail}; re-running \`${install}\` rewrites the hooks to trust`;
    default:
      return `re-run \`${install}\`: it rewrites only firstlight's part of ${check.path ?? 'the file'} and keeps everything else`;
  }
}

function checkRow(check: DoctorCheck, host: HostDiagnosis, project: string): Html {
  const state = check.ok ? (check.info ? 'info' : 'ok') : 'FAIL';
  return html`<tr class="${check.ok ? '' : 'failing'}">
<th scope="row">${check.id}</th>
<td><span class="${check.ok ? (check.info ? 'muted' : 'ok') : 'bad'}">${check.ok ? (check.info ? 'ℹ' : '✓') : '✗'} ${state}</span></td>
<td>${check.detail}${check.path ? html`<br><code class="muted">${check.path}</code>` : ''}</td>
<td>${check.ok ? '' : html`<p class="fix" data-testid="fix">${fixFor(check, host, project)}</p>`}</td>
</tr>`;
}

/** The host's state as doctor prints it: skipped is not ok (issue 38). */
function stateBadge(h: HostDiagnosis): Html {
  switch (hostState(h)) {
    case 'skipped':
      return html`<span class="muted" data-testid="state">– skipped</span>`;
    case 'ok':
      return html`<span class="ok" data-testid="state">✓ ok</span>`;
    default:
      return html`<span class="bad" data-testid="state">✗ failing</span>`;
  }
}

export function hostsView(model: HostsModel, project: string, now: Date): Html {
  const { report } = model;
  return html`<h1>Hosts</h1>
<p class="lede">What <code>firstlight doctor</code> says for <code>${report.project}</code>: per installed host, its files, hooks, and whether its server answers <code>bootstrap_session</code>. Checked ${timeTag(model.at, now)}.</p>
<form method="get" action="/hosts"><input type="hidden" name="check" value="1"><button type="submit">Check again</button></form>
${report.swept ? html`<p class="notice notice-ok">${report.swept}</p>` : ''}
${
  report.hosts.length === 0
    ? html`<section class="card"><h2>Nothing installed</h2><p data-testid="doctor-note">${report.note ?? 'firstlight is not installed here'}.</p><p>Install it for a host with <code>firstlight install claude</code> (or copilot, vscode, cursor, codex, gemini, all).</p></section>`
    : report.hosts.map(
        (
          h,
        ) => html`<section class="card" aria-labelledby="host-${h.host}-${h.scope}" data-testid="host-${h.host}">
<h2 id="host-${h.host}-${h.scope}">${h.name} <span class="muted">(${h.scope} scope)</span> ${stateBadge(h)}</h2>${
          h.skipped
            ? html`<p class="muted" data-testid="skipped">${h.skipped.reason}: its files are checked below${h.ok ? '' : ', and only a failing server fails doctor'}. Install it: ${h.skipped.install}</p>`
            : ''
        }
<div class="scroll"><table><thead><tr><th scope="col">Check</th><th scope="col">State</th><th scope="col">Detail</th><th scope="col">Fix</th></tr></thead>
<tbody>${h.checks.map((c) => checkRow(c, h, project))}</tbody></table></div></section>`,
      )
}`;
}
