/**
 * @module The host × check table of a real-host run, written as JSON and markdown to
 * `test/hosts/results/` (gitignored) for docs/hosts.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckRecord {
  host: string;
  check: string;
  status: CheckStatus;
  detail: string;
}

export interface HostRecord {
  host: string;
  name: string;
  pkg: string;
  version: string;
  /** The host's own version line, when it ran. */
  reported: string | null;
  /** Install time when this run installed it; null when the cache already had it. */
  installMs: number | null;
  /** Wall time of each host run (the two sessions; for Copilot, its listing commands). */
  sessionMs: number[];
  skipped: string | null;
}

/** Collects checks and host facts during a run, then writes them out. */
export class ResultTable {
  readonly checks: CheckRecord[] = [];
  readonly hosts: HostRecord[] = [];
  readonly started = new Date();

  check(host: string, check: string, status: CheckStatus, detail: string): void {
    this.checks.push({ host, check, status, detail });
  }

  host(record: HostRecord): void {
    this.hosts.push(record);
  }

  markdown(columns: string[]): string {
    const cell = (host: string, check: string) => {
      const c = this.checks.find((x) => x.host === host && x.check === check);
      return c ? c.status : '–';
    };
    const lines = [
      `| Host (version) | ${columns.join(' | ')} |`,
      `| --- | ${columns.map(() => '---').join(' | ')} |`,
      // One row per host (Copilot CLI records its sessions and its configuration listing).
      ...this.hosts
        .filter((h, i) => this.hosts.findIndex((x) => x.host === h.host) === i)
        .map(
          (h) =>
            `| ${h.name} ${h.version}${h.skipped ? ' (skipped)' : ''} | ${columns.map((c) => cell(h.host, c)).join(' | ')} |`,
        ),
    ];
    return `${lines.join('\n')}\n`;
  }

  write(dir: string, columns: string[], meta: Record<string, unknown>): void {
    mkdirSync(dir, { recursive: true });
    const finishedMs = Date.now() - this.started.getTime();
    writeFileSync(
      join(dir, 'results.json'),
      `${JSON.stringify({ started: this.started.toISOString(), wallMs: finishedMs, ...meta, hosts: this.hosts, checks: this.checks }, null, 2)}\n`,
    );
    const details = this.checks.map(
      (c) => `- ${c.host} ${c.check}: **${c.status}** ${c.detail.replace(/\n/g, ' ')}`,
    );
    const timings = this.hosts.map(
      (h) =>
        `- ${h.name} ${h.version}: ${h.skipped ? `skipped (${h.skipped})` : `runs ${h.sessionMs.map((m) => `${(m / 1000).toFixed(1)} s`).join(', ')}`}${h.installMs !== null ? `; installed in ${(h.installMs / 1000).toFixed(0)} s` : ''}`,
    );
    writeFileSync(
      join(dir, 'results.md'),
      [
        `# Real hosts: ${this.started.toISOString()} (${(finishedMs / 1000).toFixed(1)} s)`,
        '',
        ...Object.entries(meta).map(([k, v]) => `- ${k}: ${String(v)}`),
        '',
        this.markdown(columns),
        ...timings,
        '',
        '## Evidence',
        '',
        ...details,
        '',
      ].join('\n'),
    );
  }
}
