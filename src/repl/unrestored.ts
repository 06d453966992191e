import { KIND_OF, type SavedState, type Section, type UnrestoredEntry } from './state-store.js';
import type { ItemProblem } from './types.js';

const SECTION_OF = Object.fromEntries(
  Object.entries(KIND_OF).map(([section, kind]) => [kind, section as Section]),
) as Record<string, Section>;

/**
 * What restores could not bring back, by name. Saves write these entries again, so a backend
 * that failed to start once (a network hiccup under npx) is not dropped by the next autosave;
 * an item leaves this list when the name is defined again, or uninstalled.
 */
export class UnrestoredItems {
  private readonly items = new Map<string, UnrestoredEntry>();

  /** Forgets `name` when it is an unrestored capability (uninstall); false when it is none. */
  dropCapability(name: string): boolean {
    if (this.items.get(name)?.section !== 'capabilities') return false;
    this.items.delete(name);
    return true;
  }

  /** Forgets every item but the capabilities (a reset clears the namespace, not them). */
  keepCapabilitiesOnly(): void {
    for (const [name, item] of this.items) {
      if (item.section !== 'capabilities') this.items.delete(name);
    }
  }

  /** Adds the entries of items nothing has replaced since to `state`; returns their problems. */
  carryInto(state: SavedState): ItemProblem[] {
    const live = new Set([
      ...Object.keys(state.capabilities),
      ...Object.keys(state.native_capabilities),
      ...Object.keys(state.functions),
      ...Object.keys(state.classes),
      ...Object.keys(state.variables),
      ...state.unsaved.map((item) => item.name),
    ]);
    const carried: ItemProblem[] = [];
    for (const [name, item] of this.items) {
      if (live.has(name)) {
        this.items.delete(name);
        continue;
      }
      (state[item.section] as Record<string, unknown>)[name] = item.entry;
      carried.push(item.problem);
    }
    return carried;
  }

  /**
   * Takes in a restore of `state`: what came back leaves the list; what failed joins it with its
   * saved entry, and so does each entry `read` found invalid.
   */
  record(
    state: SavedState,
    outcome: { restored: string[]; failed: ItemProblem[]; invalid: UnrestoredEntry[] },
  ): void {
    for (const item of outcome.restored) this.items.delete(item);
    for (const problem of outcome.failed) {
      const section = SECTION_OF[problem.kind];
      const entry = section ? (state[section] as Record<string, unknown>)[problem.name] : undefined;
      if (section && entry !== undefined) this.items.set(problem.name, { section, entry, problem });
    }
    for (const item of outcome.invalid) this.items.set(item.problem.name, item);
  }
}
