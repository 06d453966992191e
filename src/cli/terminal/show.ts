/**
 * A cell's result for a person at a terminal: its output as Python printed it, then the value of
 * a trailing expression in Python's spelling (`[1, 2]`, `{'a': True}`, `None` hidden).
 */

/** A JSON value as Python would print it; a string that is a repr is printed as it is. */
export function pythonText(value: unknown, top = true): string {
  if (value === null) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string')
    return top ? value : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map((v) => pythonText(v, false)).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `'${k}': ${pythonText(v, false)}`)
      .join(', ')}}`;
  }
  return String(value);
}

export interface ShownResult {
  stdout: string;
  stderr: string;
}

/** What a cell shows: stdout (with the value), stderr (tracebacks, harness notices). */
export function showResult(result: {
  stdout: string;
  stderr: string;
  return_value: unknown;
  success: boolean;
  /** Python's own repr of the value, when the kernel was asked for it: shown as it is. */
  repr?: string;
}): ShownResult {
  let stdout = result.stdout;
  if (stdout && !stdout.endsWith('\n')) stdout += '\n';
  if (result.success && result.return_value !== null && result.return_value !== undefined)
    stdout += `${result.repr ?? pythonText(result.return_value)}\n`;
  let stderr = result.stderr;
  if (stderr && !stderr.endsWith('\n')) stderr += '\n';
  return { stdout, stderr };
}
