import type { Command } from 'commander';
import { HOME_HELP, JSON_HELP, PROJECT_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface StatusOptions extends HomeOption {
  project?: string;
  probe?: boolean;
  json?: boolean;
}

export function registerStatus(program: Command): void {
  const command = program
    .command('status')
    .description(
      'one look at the mind: home, persona, memory counts by type, last session, installed hosts, and whether their server command can start',
    )
    .option('--project <dir>', PROJECT_HELP)
    .option(
      '--probe',
      'also start each configured server and complete an MCP handshake (slower; records nothing)',
    )
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(
    command,
    ['firstlight status', 'firstlight status --probe --json'],
    [
      'It records no session and changes nothing in the mind (only derived caches under cache/ may be',
      'refreshed). `firstlight doctor` checks each host in depth.',
    ],
  ).action(async (options: StatusOptions) => {
    const { byCodeUnit, readRedactionTotals, requireHome, resolveHome } = await import('../../core/index.js');
    const { print } = await import('../io.js');
    const { projectDir } = await import('../project.js');
    const mind = await import('../../mind/index.js');
    const host = await import('../../host/index.js');
    const resolved = resolveHome({ flag: options.home });
    const home = resolved.dir;
    requireHome(home, resolved.source);
    const project = projectDir(options.project, home);
    const m = new mind.Mind({ home });
    const contract = m.contract();
    const { settings } = m.settings();
    const heading = /^#\s+(.+)$/m.exec(contract.text)?.[1]?.trim();
    const snapshot = m.memory.snapshot();
    const memories = snapshot.entries.filter((e) => e.type !== 'index');
    const byType: Record<string, number> = {};
    for (const e of memories) byType[e.type] = (byType[e.type] ?? 0) + 1;
    const history = mind.readSessionHistory(home);
    const last = history.sessions[0] ?? null;
    const installs = await host.installStatus({
      project,
      home,
      env: process.env,
      ...(options.probe
        ? { probe: (server) => host.handshakeServer(server, { env: process.env, cwd: project }) }
        : {}),
    });
    m.close();
    const { captureStatus } = await import('../../capture/index.js');
    const capture = captureStatus(home, project, new Date());
    const status = {
      home: { dir: home, source: resolved.source },
      persona: {
        name: settings.persona.name ?? (contract.available ? (heading ?? null) : null),
        contract_available: contract.available,
        files: contract.files.length,
        ...(contract.error ? { error: contract.error } : {}),
      },
      memory: {
        total: memories.length,
        by_type: sorted(byType, byCodeUnit),
        other_types: sorted(
          Object.fromEntries(Object.entries(byType).filter(([t]) => !mind.isValidType(t))),
          byCodeUnit,
        ),
        skipped: snapshot.problems.length,
        forgotten: mind.listForgotten(home).length,
        index_present: snapshot.entries.some((e) => e.type === 'index'),
      },
      last_session: last
        ? {
            ...last,
            human: mind.humanDuration(Math.max(0, Math.round((Date.now() - Date.parse(last.at)) / 1000))),
          }
        : null,
      sessions_recorded: history.sessions.length,
      redactions: readRedactionTotals(home),
      capture,
      project,
      installed: installs,
    };
    print(options.json, status, () => {
      const types = Object.entries(status.memory.by_type)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ');
      const lines = [
        `home       ${home} (${resolved.source === 'flag' ? '--home' : resolved.source === 'env' ? '$FIRSTLIGHT_HOME' : 'default'})`,
        `persona    ${status.persona.name ?? '(unnamed)'}: contract ${contract.available ? `assembles from ${contract.files.length} file(s)` : `UNAVAILABLE: ${contract.error ?? ''}`}`,
        `memory     ${status.memory.total} memories${types ? ` (${types})` : ''}${status.memory.forgotten ? `; ${status.memory.forgotten} forgotten` : ''}${status.memory.skipped ? `; ${status.memory.skipped} skipped as malformed` : ''}`,
      ];
      const others = Object.keys(status.memory.other_types);
      if (others.length > 0) lines.push(`           types outside the list: ${others.join(', ')}`);
      lines.push(
        `sessions   ${status.last_session ? `last ${status.last_session.human} (${status.last_session.at})` : 'none recorded yet'}; ${status.sessions_recorded} recorded`,
      );
      const r = status.redactions;
      lines.push(
        r.total === 0
          ? 'redacted   nothing yet (secrets and <private> blocks are taken out before anything is written)'
          : `redacted   ${r.total} since ${r.since}: ${Object.entries(r.by_kind)
              .sort((a, b) => b[1] - a[1])
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')} (by writer: ${Object.entries(r.by_writer)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ')})`,
      );
      lines.push(...captureLines(capture));
      if (installs.length === 0)
        lines.push(`hosts      none installed for ${project} (run: firstlight install HOST)`);
      for (const i of installs) {
        lines.push(`hosts      ${i.scope}: ${i.hosts.join(', ')}`);
        if (i.reachable)
          lines.push(`server     ${i.reachable.ok ? 'ok' : 'NOT REACHABLE'}: ${i.reachable.detail}`);
      }
      return lines.join('\n');
    });
  });
}

function captureLines(c: import('../../capture/index.js').CaptureStatus): string[] {
  const cur = c.curator;
  const lines = [
    `capture    ${c.mode === 'off' ? `off (${c.off_by})` : `${c.mode}, at most ${c.max_per_session} per session`}; ${c.queued} queued; curator ${cur.substrate ? `${cur.substrate}: ${cur.today.used} / ${cur.daily_tokens} tokens today (${cur.today.date}), at most ${cur.session_tokens} a session` : 'off (capture.curator.substrate)'}`,
  ];
  const days = cur.days.filter((d) => d.date !== cur.today.date);
  if (days.length > 0)
    lines.push(`           earlier: ${days.map((d) => `${d.date} ${d.used}`).join(', ')} tokens`);
  for (const r of c.last) {
    const curator = r.curator
      ? `; curator ${r.curator.status}${r.curator.why ? ` (${r.curator.why})` : ''}`
      : '';
    lines.push(
      `           ${r.at.slice(0, 16).replace('T', ' ')} ${r.host} ${r.session.slice(0, 12)}: ${r.status}${r.why ? ` (${r.why})` : ''}, wrote ${r.wrote}, proposed ${r.proposed}, skipped ${r.skipped}${r.tokens === null ? '' : `, ${r.tokens} tokens`}${curator}`,
    );
  }
  return lines;
}

function sorted(
  counts: Record<string, number>,
  byCodeUnit: (a: string, b: string) => number,
): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1] || byCodeUnit(a[0], b[0])));
}
