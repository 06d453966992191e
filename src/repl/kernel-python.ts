import { spawnSync } from 'node:child_process';
import { UserError } from '../core/index.js';
import type { KernelKind } from './kernel-process.js';

/** Where a Jupyter kernel's modules are looked for when the configured interpreter lacks them. */
const SYSTEM_PYTHON = '/usr/bin/python3';

/** True when `python` runs and imports every module in `modules`. */
function imports(python: string, modules: readonly string[]): boolean {
  const result = spawnSync(python, ['-c', `import ${modules.join(', ')}`], {
    stdio: 'ignore',
    timeout: 30_000,
  });
  return result.status === 0;
}

/**
 * The interpreter that runs the kernel. The stdlib kernel uses `python` as configured. A
 * Jupyter kernel needs jupyter_client and ipykernel: `python` when it has them, else the
 * system interpreter (where Debian's python3-ipykernel installs them), else a UserError
 * saying how to install them.
 */
export function kernelPython(python: string, kind: KernelKind): string {
  if (kind === 'stdlib') return python;
  const modules = ['jupyter_client', 'ipykernel'];
  for (const candidate of new Set([python, SYSTEM_PYTHON])) {
    if (imports(candidate, modules)) return candidate;
  }
  throw new UserError(
    `the Jupyter kernel needs jupyter_client and ipykernel, which "${python}" cannot import`,
    {
      code: 'JUPYTER_NOT_FOUND',
      hint:
        'install them (Debian/Ubuntu: apt-get install python3-ipykernel python3-jupyter-client; ' +
        'or pip install ipykernel jupyter_client in a virtualenv and set repl.python to its python), ' +
        'or use the built-in kernel: --kernel stdlib',
    },
  );
}
