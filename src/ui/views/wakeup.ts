/**
 * Wake-up: what an agent starting a session now reads. The SessionStart text comes from the
 * hook's own renderer and the packet from the mind's own bootstrap, both as previews (nothing
 * is recorded and no clear-after-inject tail is consumed); per host, the exact hook output.
 */
import { join } from 'node:path';
import { estimateTokensForChars } from '../../core/index.js';
import { HOST_ADAPTERS, HOST_IDS, renderSessionText } from '../../host/index.js';
import { type BootstrapPacket, memoriesCounted, renderPacketMarkdown } from '../../mind/index.js';
import { INJECTED_ANCHORS, readSelfState, renderResumption } from '../../resume/index.js';
import type { UiContext } from '../context.js';
import { type Html, html } from '../html.js';

/** Claude Code turns hook output over this many characters into a file and a 2 KB preview. */
const CLAUDE_HOOK_FILE_CHARS = 10_000;

export interface WakeupModel {
  packet: BootstrapPacket;
  sessionStart: string;
  maxChars: number;
  leftOut: string[];
  hosts: { id: string; name: string; event: string | undefined; stdout: string; note: string | undefined }[];
}

export async function wakeupModel(context: UiContext): Promise<WakeupModel> {
  const [packet, sessionStart] = await Promise.all([
    context.mind.bootstrap({ sessionId: null, preview: true }),
    renderSessionText(context.mind, { sessionId: null, resume: true, preview: true }),
  ]);
  const maxChars = context.mind.settings().settings.packet.markdown_max_chars;
  const hosts = HOST_IDS.map((id) => {
    const adapter = HOST_ADAPTERS[id];
    const event = adapter.caps.events['session-start'];
    const out = event
      ? adapter.formatHookOutput('session-start', { kind: 'context', text: sessionStart })
      : undefined;
    const size = out?.stdout?.length ?? 0;
    return {
      id,
      name: adapter.name,
      event,
      stdout: out?.stdout ?? '',
      note: !event
        ? 'no SessionStart hook: the instruction file tells the agent to call bootstrap_session first'
        : id === 'claude' && size > CLAUDE_HOOK_FILE_CHARS
          ? `over ${CLAUDE_HOOK_FILE_CHARS} characters: Claude Code saves it to a file and shows a 2 KB preview`
          : undefined,
    };
  });
  return { packet, sessionStart, maxChars, leftOut: leftOut(context, packet, sessionStart, maxChars), hosts };
}

/** What the agent does not get at start, and where it is instead. */
function leftOut(context: UiContext, packet: BootstrapPacket, text: string, maxChars: number): string[] {
  const out: string[] = [];
  const uncut = renderPacketMarkdown(packet, { maxChars: Number.MAX_SAFE_INTEGER });
  if (uncut.length > text.length) {
    out.push(
      `${uncut.length - text.length} characters of the SessionStart text (the end of the mind contract first) to stay within packet.markdown_max_chars = ${maxChars}: the agent reads the full contract with get_system_prompt()`,
    );
  }
  const m = packet.memory_catalog;
  out.push(
    `the ${memoriesCounted(m)} memories themselves: the packet carries only their counts by type; the agent reaches them with recall(query)`,
  );
  const state = readSelfState(join(context.home, 'self-state.json'));
  if (state.status === 'ok' && packet.resumption) {
    const stored = state.state.anchors.length;
    const shown = packet.resumption.anchors.length;
    if (stored > shown) {
      out.push(
        `${stored - shown} older anchor(s) of ${stored} stored (at most ${INJECTED_ANCHORS} newest, within the resumption budget)`,
      );
    }
    if (packet.resumption.trimmed === true)
      out.push('the front of the stream tail, cut to fit the resumption budget (the newest words are kept)');
  }
  const surprises = packet.unreflected_surprises;
  if (surprises && surprises.count > surprises.top.length)
    out.push(
      `${surprises.count - surprises.top.length} unreflected surprise(s) beyond the ${surprises.top.length} named`,
    );
  if (packet.guidance && packet.guidance.length > 0)
    out.push(
      `the text of ${packet.guidance.length} guidance doc(s): named with their directive; read with expand_reference(name)`,
    );
  return out;
}

function meter(label: string, used: number, max: number): Html {
  const share = Math.min(1, used / max);
  return html`<p class="budget"><span class="budget-label">${label}</span>
<meter min="0" max="${max}" value="${used}" high="${Math.round(max * 0.9)}" optimum="0" aria-label="${label}">${used} of ${max}</meter>
<span>${used.toLocaleString('en')} of ${max.toLocaleString('en')} characters (${Math.round(share * 100)}%), about ${estimateTokensForChars(used).toLocaleString('en')} tokens</span></p>`;
}

export function wakeupView(model: WakeupModel, now: Date): Html {
  const { packet } = model;
  const resumption = packet.resumption ? renderResumption(packet.resumption, { now }) : '';
  const reasons = packet.degraded_mode.reasons;
  const causes = packet.degraded_mode.causes ?? {};
  return html`<h1>Wake-up</h1>
<p class="lede">What an agent starting a session now reads, exactly as each host receives it. This page is a preview: it records no session and consumes no resumption.</p>
${
  reasons.length > 0
    ? html`<section class="card warn" aria-labelledby="degraded"><h2 id="degraded">Degraded</h2><ul>${reasons.map(
        (r) => html`<li>${r}${causes[r] ? html`: <span class="muted">${causes[r]}</span>` : ''}</li>`,
      )}</ul></section>`
    : ''
}
<section class="card" aria-labelledby="resumption"><h2 id="resumption">Resumption (first in every rendering)</h2>
${
  resumption
    ? html`<pre class="text" data-testid="resumption">${resumption}</pre><p class="muted">Captured ${packet.resumption?.captured_at ?? ''} by ${packet.resumption?.source ?? 'internalize'}.</p>`
    : html`<p>Nothing captured yet: the next session starts without a resumption. It is captured by <code>internalize</code> and by the Stop and PreCompact hooks.</p>`
}
</section>
<section class="card" aria-labelledby="budget"><h2 id="budget">Budget</h2>
${meter('SessionStart text', model.sessionStart.length, model.maxChars)}
<p>bootstrap_session packet: ${packet.budget.chars.toLocaleString('en')} characters, about ${packet.budget.tokens_estimate.toLocaleString('en')} tokens.</p>
<h3>Left out</h3>
<ul data-testid="left-out">${model.leftOut.map((l) => html`<li>${l}</li>`)}</ul>
</section>
<section class="card" aria-labelledby="per-host"><h2 id="per-host">Per host</h2>
<p class="muted">What each host's SessionStart hook prints for a new session (<code>startup</code>; <code>resume</code> and <code>compact</code> get the same, <code>clear</code> the same without the resumption), once per session and source. The hook names the host's session id in the first-call line, which this preview cannot know.</p>
<table><caption class="sr-only">What each host's SessionStart hook prints</caption>
<thead><tr><th scope="col">Host</th><th scope="col">Hook event</th><th scope="col">Output</th></tr></thead>
<tbody>${model.hosts.map(
    (h) =>
      html`<tr><th scope="row">${h.name}</th><td>${h.event ? html`<code>${h.event}</code>` : '—'}</td><td>${
        h.stdout
          ? html`<details><summary>${h.stdout.length.toLocaleString('en')} characters of JSON on stdout</summary><pre class="json">${h.stdout}</pre></details>`
          : ''
      }${h.note ? html`<p class="muted">${h.note}</p>` : ''}</td></tr>`,
  )}</tbody></table>
</section>
<section class="card" aria-labelledby="session-start"><h2 id="session-start">SessionStart text</h2>
<pre class="text" data-testid="session-start">${model.sessionStart}</pre>
</section>
<section class="card" aria-labelledby="packet"><h2 id="packet">bootstrap_session packet</h2>
<details><summary>The JSON the tool returns (schema v${packet.schema_version})</summary><pre class="json" data-testid="packet">${JSON.stringify(packet, null, 2)}</pre></details>
</section>`;
}
