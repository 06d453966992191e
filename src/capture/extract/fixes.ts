/**
 * A command that failed, then passed once another command ran: "`pnpm test` failed until
 * `pnpm run codegen` ran" → a caution on the failing command. Only a command in between counts
 * as the fix: a failure fixed by editing the code is ordinary work (red, then green), not a
 * fact about the project; a failure that passes on a plain retry is a flake, not a rule.
 */
import { type Call, commandOf } from '../conversation.js';
import { type Candidate, clipLine, evidenceOf } from './candidate.js';

/** Commands that only look: never the fix. */
const LOOKS =
  /^(?:ls|cat|head|tail|less|grep|rg|find|pwd|echo|printf|which|type|wc|stat|file|tree|env|sed -n|awk|jq|git (?:status|diff|log|show|branch|remote)|node -v|npm -v|[\w-]+ --version|[\w-]+ -v|cd)\b/;

interface Shell {
  call: Call;
  command: string;
}

/** A command's first words (`pnpm test`), what a caution's glob names. */
function stem(command: string): string {
  const words = command.replace(/^(?:\w+=\S*\s+)+/, '').split(/\s+/);
  return words.slice(0, words[0] === 'npm' || words[0] === 'pnpm' || words[0] === 'yarn' ? 3 : 2).join(' ');
}

/** The error line of a failure's output: the first line that says what went wrong. */
function errorLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const line =
    lines.find((l) =>
      /\b(?:error|cannot|can't|not found|missing|failed|no such|undefined|denied)\b/i.test(l),
    ) ??
    lines.find((l) => !/^exit(?:ed)? /i.test(l)) ??
    '';
  return clipLine(line, 200);
}

export function findFixes(calls: readonly Call[]): Candidate[] {
  const shells: Shell[] = [];
  for (const call of calls) {
    const command = commandOf(call);
    if (command && call.outcome) shells.push({ call, command });
  }
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < shells.length; i++) {
    const failed = shells[i]!;
    if (failed.call.outcome!.ok || seen.has(failed.command)) continue;
    // The next run of the same command (or the same command with a prefix: `FOO=1 pnpm test`).
    let j = i + 1;
    while (
      j < shells.length &&
      !(shells[j]!.command === failed.command || shells[j]!.command.endsWith(` ${failed.command}`))
    )
      j++;
    const passed = shells[j];
    if (!passed?.call.outcome?.ok) continue;
    seen.add(failed.command);
    const between = shells.slice(i + 1, j).filter((s) => s.call.outcome!.ok && !LOOKS.test(s.command));
    const prefix =
      passed.command === failed.command ? '' : passed.command.slice(0, -failed.command.length).trim();
    const fix = prefix || between.at(-1)?.command;
    if (!fix) continue; // fixed by an edit, or a flake
    const why = errorLine(failed.call.outcome!.text);
    const advice = prefix
      ? `Run \`${failed.command}\` as \`${passed.command}\``
      : `Run \`${fix}\` before \`${failed.command}\``;
    const fixCall = prefix ? passed.call : between.at(-1)!.call;
    out.push({
      kind: 'fix',
      type: 'caution',
      name: clipLine(advice.replace(/`/g, ''), 80),
      description: clipLine(`${advice}: it failed without it${why ? ` (${why})` : ''}.`, 160),
      content: `${advice}.\n\n\`${failed.command}\` failed${why ? ` with: ${why}` : ''}; after \`${fix}\` it passed.`,
      applies_to: [`*(${stem(failed.command)}*)`],
      evidence: [
        evidenceOf(failed.call.outcome!.line, `${failed.command} → ${why || 'failed'}`),
        evidenceOf(fixCall.line, fix),
        evidenceOf(passed.call.outcome!.line, `${passed.command} → passed`),
      ],
    });
  }
  return out;
}
