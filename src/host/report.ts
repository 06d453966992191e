/** Human renderings of install, uninstall and doctor results (the CLI prints them; --json prints the data). */

import type { TranscriptFormat } from '../resume/transcripts/index.js';
import { HOST_ADAPTERS } from './adapters/index.js';
import type { DoctorReport, HostDiagnosis } from './doctor.js';
import { GATE_BYPASS_ENV } from './hook/gate-config.js';
import { HOST_IDS } from './ids.js';
import type { InstallReport } from './install/installer.js';
import type { HostAdapter } from './types.js';

const TRANSCRIPT_NAME = {
  claude: "Claude Code's",
  codex: "Codex's rollout",
  gemini: "Gemini CLI's session",
  copilot: "Copilot CLI's events",
} as const satisfies Record<TranscriptFormat, string>;

/** Which proof the gate uses on this host, for doctor, the action block and the docs table. */
export function gateProof(adapter: HostAdapter): 'transcript' | 'record' | 'none' {
  const { gate } = adapter.caps;
  return 'transcript' in gate ? 'transcript' : 'record' in gate ? 'record' : 'none';
}

/** One sentence per host on the PreToolUse gate, for the action block, doctor and the docs table. */
export function gateSummary(adapter: HostAdapter): { enforced: boolean; text: string } {
  const { gate } = adapter.caps;
  const bypass = `bypass: ${GATE_BYPASS_ENV}=1 in the host's environment`;
  if ('transcript' in gate) {
    return {
      enforced: true,
      text: `enforced: gated tools wait until ${TRANSCRIPT_NAME[gate.transcript]} transcript (or firstlight's own bootstrap record) holds a successful bootstrap_session (${bypass})`,
    };
  }
  if ('record' in gate) {
    const caveat = gate.record.caveat ? `; note: ${gate.record.caveat}` : '';
    return {
      enforced: true,
      text: `enforced: gated tools wait until firstlight's own record holds a successful bootstrap_session(session_id: …) for the hook's \`${gate.record.idField}\` (${bypass})${caveat}`,
    };
  }
  return {
    enforced: false,
    text: `not installed: ${gate.none}; the bootstrap rule and the SessionStart packet still apply`,
  };
}

function fileLines(report: InstallReport): string[] {
  const width = Math.max(...report.files.map((f) => f.display.length), 10);
  const lines: string[] = [];
  for (const f of report.files) {
    lines.push(
      `  ${f.action.padEnd(9)} ${f.display.padEnd(width)}  ${f.labels.join(', ')} (${f.hosts.join(', ')})`,
    );
    for (const note of f.notes) lines.push(`            note: ${note}`);
  }
  return lines;
}

function diffs(report: InstallReport): string[] {
  return report.files.filter((f) => f.diff).map((f) => f.diff!);
}

/** The seed's setup action block: what was written where, the required first call, what is left to do. */
export function renderInstallReport(report: InstallReport): string {
  const names = report.hosts.map((h) => HOST_ADAPTERS[h].name).join(', ');
  const head = report.dryRun
    ? `firstlight install --dry-run: ${names} (${report.scope} scope, ${report.project}); nothing was written.`
    : `firstlight host bootstrap: ${names} (${report.scope} scope, ${report.project})`;
  const lines = [head, '', ...fileLines(report)];
  if (report.dryRun) lines.push('', ...diffs(report));
  lines.push(
    '',
    'Required first call in new sessions: bootstrap_session()',
    'If mind_contract_available=false: the mind is degraded; say so and do not impersonate the persona.',
    'If the firstlight server is unreachable: say you are running body-only.',
    '',
    'Tool gate (PreToolUse):',
    ...report.hosts.map((h) => `  - ${HOST_ADAPTERS[h].name}: ${gateSummary(HOST_ADAPTERS[h]).text}`),
  );
  const manual = report.manualSteps.filter((m) => m.steps.length > 0);
  if (manual.length > 0) {
    lines.push('', 'Do by hand (install cannot write these):');
    for (const m of manual)
      for (const step of m.steps) lines.push(`  - ${HOST_ADAPTERS[m.host].name}: ${step}`);
  }
  if (report.pasteBlock) {
    const rule = '-'.repeat(72);
    lines.push(
      '',
      'The bootstrap block to paste (everything between the lines):',
      rule,
      report.pasteBlock,
      rule,
    );
  }
  if (!report.dryRun) {
    lines.push('', `Recorded in ${report.manifest}; \`firstlight uninstall\` reverses exactly this.`);
    lines.push(`Check it: firstlight doctor --project ${report.project}`);
  }
  return lines.join('\n');
}

export function renderUninstallReport(report: InstallReport): string {
  const names = report.hosts.map((h) => HOST_ADAPTERS[h].name).join(', ');
  const lines = [
    `firstlight uninstall${report.dryRun ? ' --dry-run' : ''}: ${names} (${report.scope} scope, ${report.project})`,
    '',
    ...fileLines(report),
  ];
  if (report.dryRun) lines.push('', ...diffs(report));
  return lines.join('\n');
}

/**
 * A host's state as doctor says it, one answer for the CLI and the UI (issue 38: the UI said
 * "ok" for a host doctor skipped): skipped when its program is not on this machine.
 */
export function hostState(h: HostDiagnosis): 'skipped' | 'ok' | 'failing' {
  return h.skipped ? 'skipped' : h.ok ? 'ok' : 'failing';
}

export function renderDoctorReport(report: DoctorReport): string {
  const swept = report.swept ? `\n  info ${report.swept}` : '';
  if (report.hosts.length === 0) return `firstlight doctor: ${report.note ?? 'nothing installed'}${swept}`;
  const skipped = report.hosts.filter((h) => h.skipped).length;
  const verdict = !report.ok
    ? 'PROBLEMS FOUND'
    : skipped > 0
      ? `ok (${skipped} skipped: not on this machine)`
      : 'all checks pass';
  const lines = [`firstlight doctor: ${report.project} — ${verdict}${swept}`];
  for (const h of report.hosts) {
    const state = { skipped: `skipped: ${h.skipped?.reason}`, ok: 'ok', failing: 'FAILING' }[hostState(h)];
    lines.push('', `${h.name} (${h.scope}): ${state}`);
    if (h.skipped)
      lines.push(
        `  its files are checked below${h.ok ? '' : ', and only a failing server fails doctor'}; install it: ${h.skipped.install}`,
      );
    for (const c of h.checks)
      lines.push(`  ${c.ok ? (c.info ? 'info' : 'ok  ') : 'FAIL'} ${c.id.padEnd(36)} ${c.detail}`);
  }
  return lines.join('\n');
}

function gateCell(adapter: HostAdapter): string {
  const { gate } = adapter.caps;
  if ('transcript' in gate) return `yes (${gate.transcript} transcript, or firstlight's record)`;
  if ('record' in gate) return `yes (firstlight's record for \`${gate.record.idField}\`)`;
  return 'no';
}

/** The host-format table in docs/hosts.md, generated from the adapter registry. */
export function renderHostFormatTable(): string {
  const rows = HOST_IDS.map((id) => {
    const a = HOST_ADAPTERS[id];
    const events = Object.entries(a.caps.events)
      .map(([canonical, own]) => `${canonical}→\`${own}\``)
      .join(', ');
    const cells = [
      `${a.name} (\`${id}\`)`,
      a.caps.table.mcp,
      a.caps.table.instructions,
      a.caps.table.hooks,
      events,
      gateCell(a),
    ];
    return `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  });
  return [
    '| host | MCP config | instruction files | hooks | events installed | tool gate |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
