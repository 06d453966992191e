import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import {
  ConfigError,
  describeLeftovers,
  NotFoundError,
  sweepLeftovers,
  UnsafeFileError,
  UserError,
} from '../core/index.js';
import type { BackendStatus, ServerSpec } from '../hub/index.js';
import { KernelHost, KernelRestartedError } from './harness.js';
import { startHeartbeat } from './heartbeat.js';
import { checkCapabilityName, pythonNamesFor } from './names.js';
import { type InstallInput, serverSpecFor } from './server-spec.js';
import { KIND_OF, type SavedState, StateStore } from './state-store.js';
import type {
  InstallResult,
  ItemProblem,
  KernelTool,
  Progress,
  ReplDeps,
  RestoreResult,
  SaveResult,
} from './types.js';
import { UnrestoredItems } from './unrestored.js';

const AUTOSAVE = 'autosave';

/**
 * The autosave of one project: `autosave.<dir name>-<hash of the path>`, so two projects never
 * share one (nor two checkouts with the same directory name) and the file says whose it is.
 */
export function autosaveNameFor(projectDir: string): string {
  const hash = createHash('sha256').update(resolve(projectDir)).digest('hex').slice(0, 10);
  const slug = basename(resolve(projectDir))
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 40);
  return `${AUTOSAVE}.${slug ? `${slug}-` : ''}${hash}`;
}
/** Seconds a saved definition may run while it is restored (a class body is code). */
const RESTORE_ITEM_TIMEOUT_S = 10;

/** The REPL harness: kernel, relay capabilities, native capabilities and saved states. */
export class Repl extends KernelHost {
  private readonly specs = new Map<string, ServerSpec>();
  /** What restores could not bring back; saves write it again (unrestored.ts). */
  private readonly unrestored = new UnrestoredItems();
  readonly store: StateStore;
  private closing: Promise<void> | undefined;

  private constructor(deps: ReplDeps) {
    super(deps);
    this.store = new StateStore(deps.home);
  }

  /**
   * Starts the kernel and, when autosave is on and a previous one exists, queues its restore:
   * requests wait behind it, but the server can answer `initialize` meanwhile (a backend may
   * take a while to start). The outcome is a notice on the next execute.
   */
  static async start(deps: ReplDeps): Promise<Repl> {
    const repl = new Repl(deps);
    // What a harness killed mid-save left (temp files, stale locks): swept and said once.
    const swept = sweepLeftovers([repl.store.dir]);
    if (swept.length > 0) repl.notice(describeLeftovers(swept, deps.home));
    await repl.serial(() => repl.ensureKernel());
    const autosave = deps.autosave ?? AUTOSAVE;
    if (deps.settings.autosave && repl.hasState(autosave)) {
      repl.restoreState(autosave).then(
        (result) => repl.notice(result.message),
        (error) => {
          let kept = '';
          if (error instanceof ConfigError || error instanceof UnsafeFileError) {
            // Unreadable as a whole: the autosave at shutdown would overwrite it, so keep it.
            try {
              kept = `; the file was kept as ${repl.store.setAside(autosave, deps.clock?.() ?? new Date())}`;
            } catch (renameError) {
              kept = `; it could not be set aside either (${(renameError as Error).message})`;
            }
          }
          repl.notice(`could not restore the autosave: ${(error as Error).message}${kept}`);
        },
      );
    }
    return repl;
  }

  /** Whether a state is there; a file that is there but refused (a symlink out, a FIFO) counts. */
  private hasState(name: string): boolean {
    try {
      return this.store.exists(name);
    } catch {
      return true;
    }
  }

  /**
   * Starts a backend MCP server and injects it as a capability object named `name`. With
   * `progress`, a report every second says what it waits for (an `npx -y` download can take a
   * while before the server answers).
   */
  installCapability(input: InstallInput, options: { progress?: Progress } = {}): Promise<InstallResult> {
    return this.serial(() => this.install(input, options.progress));
  }

  private async install(input: InstallInput, progress?: Progress): Promise<InstallResult> {
    checkCapabilityName(input.name);
    const spec = serverSpecFor(input, this.deps.cwd);
    const command = [spec.command, ...spec.args].join(' ');
    // Long command lines keep their start and their end (the package or script it runs).
    let phase = `starting ${command.length > 70 ? `${command.slice(0, 30)}…${command.slice(-39)}` : command}`;
    const heartbeat = progress ? startHeartbeat(progress, () => phase) : undefined;
    try {
      return await this.installWith(input, spec, (next) => {
        phase = next;
      });
    } finally {
      heartbeat?.stop();
    }
  }

  private async installWith(
    input: InstallInput,
    spec: ServerSpec,
    setPhase: (phase: string) => void,
  ): Promise<InstallResult> {
    const kernel = await this.liveKernel();
    const natives = (await kernel.request<{ names: string[] }>('natives')).names;
    if (natives.includes(input.name)) {
      throw new UserError(`"${input.name}" is a native capability in the REPL`, {
        code: 'CAPABILITY_EXISTS',
        hint: 'choose another `name`, or uninstall_capability it first',
      });
    }
    const connection = await this.hub.connect(input.name, spec);
    setPhase(`injecting ${connection.tools.length} tools as ${input.name}`);
    const tools: KernelTool[] = pythonNamesFor(connection.tools.map((tool) => tool.name)).map((names, i) => ({
      ...names,
      description: connection.tools[i]?.description ?? '',
      input_schema: connection.tools[i]?.inputSchema ?? {},
    }));
    this.specs.set(input.name, spec);
    this.relayTools.set(input.name, tools);
    await kernel.request('install', { name: input.name, tools });
    const description = (await kernel.request<{ text: string }>('describe', { name: input.name })).text;
    const methods = tools.map((tool) => tool.pyname);
    return {
      name: input.name,
      methods,
      description,
      message: `Installed '${input.name}' with methods: ${methods.join(', ')}`,
    };
  }

  /** Removes a relay capability (killing its server's process group) or a native one. */
  uninstallCapability(name: string): Promise<{ name: string; message: string }> {
    return this.serial(async () => {
      const kernel = await this.liveKernel();
      const natives = (await kernel.request<{ names: string[] }>('natives')).names;
      const relay = this.specs.has(name);
      if (!relay && !natives.includes(name)) {
        if (this.unrestored.dropCapability(name)) {
          return { name, message: `Dropped '${name}' (it had not been restored) from future saves` };
        }
        throw this.unknownCapability(name, natives);
      }
      this.specs.delete(name);
      this.relayTools.delete(name);
      await kernel.request('uninstall', { name });
      if (relay) await this.hub.disconnect(name);
      return { name, message: `Uninstalled '${name}'${relay ? ' and stopped its server' : ''}` };
    });
  }

  /** The capability's documentation, from its tool specs (or its own describe()). */
  describeCapability(name: string): Promise<{ name: string; description: string; backend?: BackendStatus }> {
    return this.serial(async () => {
      const kernel = await this.liveKernel();
      const text = (await kernel.request<{ text: string | null }>('describe', { name })).text;
      if (text === null) {
        throw this.unknownCapability(name, (await kernel.request<{ names: string[] }>('natives')).names);
      }
      const backend = this.hub.get(name)?.status();
      return backend ? { name, description: text, backend } : { name, description: text };
    });
  }

  private unknownCapability(name: string, natives: string[]): NotFoundError {
    const known = [...this.specs.keys(), ...natives];
    return new NotFoundError(
      `no capability named "${name}"`,
      known.length > 0
        ? `installed: ${known.join(', ')}`
        : 'install one with install_capability, or register_capability(obj) in Python',
    );
  }

  /** Clears the namespace and history; capabilities (relay and native) stay. */
  reset(): Promise<{ message: string; capabilities: string[] }> {
    return this.serial(async () => {
      const kernel = await this.liveKernel();
      await kernel.request('reset');
      this.unrestored.keepCapabilitiesOnly();
      const capabilities = (await kernel.request<{ capabilities: string[] }>('state')).capabilities;
      return {
        message: `REPL reset: namespace and history cleared; capabilities kept: ${capabilities.join(', ') || '(none)'}`,
        capabilities,
      };
    });
  }

  /** Writes the namespace, capabilities and history to `<home>/repl/states/<name>.json`. */
  saveState(name = 'default'): Promise<SaveResult> {
    return this.serial(() => this.save(name));
  }

  private async save(name: string): Promise<SaveResult> {
    this.store.fileFor(name);
    const kernel = await this.liveKernel();
    const exported =
      await kernel.request<Omit<SavedState, 'version' | 'saved_at' | 'capabilities' | 'execution_count'>>(
        'export',
      );
    const count = (await kernel.request<{ execution_count: number }>('state')).execution_count;
    const capabilities = Object.fromEntries(
      [...this.specs].map(([key, spec]) => [
        key,
        { command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd ?? null },
      ]),
    );
    const state: SavedState = {
      version: 1,
      saved_at: (this.deps.clock?.() ?? new Date()).toISOString(),
      capabilities,
      ...exported,
      execution_count: count,
    };
    const unrestored = this.unrestored.carryInto(state);
    const file = await this.store.write(name, state);
    const saved = {
      capabilities: Object.keys(capabilities).length,
      native_capabilities: Object.keys(state.native_capabilities).length,
      functions: Object.keys(state.functions).length,
      classes: Object.keys(state.classes).length,
      variables: Object.keys(state.variables).length,
    };
    const bare = file.split(/[\\/]/).pop() as string;
    const unsavedText =
      state.unsaved.length > 0
        ? `; not saved: ${state.unsaved.map((item) => `${item.name} (${item.reason})`).join('; ')}`
        : '';
    const unrestoredText =
      unrestored.length > 0
        ? `; kept as read, still not restored: ${unrestored.map((item) => `${item.name} [${item.kind}]`).join(', ')}`
        : '';
    return {
      name,
      file,
      saved,
      unsaved: state.unsaved,
      unrestored,
      message: `State saved to ${bare}${unsavedText}${unrestoredText}`,
    };
  }

  /** Re-installs the saved capabilities and merges the saved namespace into the current one. */
  restoreState(name = 'default'): Promise<RestoreResult> {
    return this.serial(() => this.restore(name));
  }

  private async restore(name: string): Promise<RestoreResult> {
    const { state, invalid } = this.store.read(name);
    // A value kept as its repr is in `unsaved` and in `variables`: the kernel's restore reports it once.
    const failed: ItemProblem[] = state.unsaved
      .filter((item) => state.variables[item.name]?.type !== 'repr')
      .map((item) => ({ ...item, reason: `not saved: ${item.reason}` }));
    const restored: string[] = [];
    for (const [capability, saved] of Object.entries(state.capabilities)) {
      const input = { name: capability, ...saved, cwd: saved.cwd ?? undefined };
      try {
        const current = this.specs.get(capability);
        if (current && JSON.stringify(current) === JSON.stringify(serverSpecFor(input, this.deps.cwd))) {
          restored.push(capability);
          continue;
        }
        await this.install(input);
        restored.push(capability);
      } catch (error) {
        failed.push({ name: capability, kind: 'capability', reason: (error as Error).message });
      }
    }
    let result: { restored: string[]; failed: ItemProblem[] };
    try {
      // Each definition may run for RESTORE_ITEM_TIMEOUT_S (or the cell timeout if shorter):
      // a looping class body is reported alone. Beyond those, the restore gets the cell
      // timeout; past it the kernel is restarted.
      const itemTimeout = Math.min(RESTORE_ITEM_TIMEOUT_S, this.deps.settings.timeout_s);
      const definitions = ['functions', 'classes', 'native_capabilities'] as const;
      const count = definitions.reduce((sum, section) => sum + Object.keys(state[section]).length, 0);
      result = await this.requestBounded(
        'restore',
        { state, output_cap: this.deps.settings.output_max_chars, item_timeout: itemTimeout },
        this.deps.settings.timeout_s + itemTimeout * count,
      );
    } catch (error) {
      if (!(error instanceof KernelRestartedError)) throw error;
      result = { restored: [], failed: [{ name: '(namespace)', kind: 'kernel', reason: error.message }] };
      for (const section of ['functions', 'classes', 'variables', 'native_capabilities'] as const) {
        for (const item of Object.keys(state[section])) {
          result.failed.push({
            name: item,
            kind: KIND_OF[section],
            reason: 'the kernel was restarted during the restore',
          });
        }
      }
    }
    restored.push(...result.restored);
    failed.push(...result.failed);
    this.unrestored.record(state, { restored, failed, invalid });
    failed.push(...invalid.map((item) => item.problem));
    const failedText =
      failed.length > 0
        ? `; NOT restored: ${failed.map((item) => `${item.name} [${item.kind}] (${item.reason})`).join('; ')}`
        : '';
    return {
      name,
      restored,
      failed,
      message: `Restored state "${name}"${state.saved_at ? ` saved ${state.saved_at}` : ''}: ${restored.length} item(s)${
        restored.length > 0 ? ` (${restored.join(', ')})` : ''
      }${failedText}`,
    };
  }

  /**
   * Saves `autosave` (when enabled), then stops every backend process group and the kernel.
   * A running cell is interrupted first so the save is not stuck behind it. Idempotent.
   */
  shutdown(): Promise<void> {
    this.closing ??= (async () => {
      if (this.deps.settings.autosave) {
        this.interruptRunning();
        const saving = this.saveState(this.deps.autosave ?? AUTOSAVE).then(
          (result) => this.log.info(result.message),
          (error) => this.log.warn(`autosave failed: ${(error as Error).message}`),
        );
        const limit = (this.deps.settings.interrupt_grace_s + 5) * 1000;
        await Promise.race([saving, new Promise((resolve) => setTimeout(resolve, limit).unref())]);
      }
      await this.stopProcesses();
    })();
    return this.closing;
  }
}
