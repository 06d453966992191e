import type { Prompt, ResourceTemplateSpec, Tool } from '../core/index.js';
import { createGuidance, type Guidance } from '../guidance/index.js';
import {
  Cognition,
  type ConnectionInfo,
  type CreateMindOptions,
  createMind,
  type Mind,
  mindServerPrompts,
  mindServerResources,
  mindServerTools,
  openRecallIndex,
  type RecallIndex,
} from '../mind/index.js';

/** Where firstlight runs: the home, the project, and the process's log and clock. */
export type FirstlightOptions = Omit<CreateMindOptions, 'guidance'>;

/**
 * The composition root: every part of the `firstlight` server, built once per process with its
 * collaborators passed in, and what each server registers. Stdio serves one connection over it;
 * HTTP makes one MCP server per session over the same instance.
 */
export interface Firstlight {
  readonly mind: Mind;
  readonly guidance: Guidance;
  /** The recall index, opened on first use (bootstrap never needs it). */
  recall(): RecallIndex;
  /** The cognition pipeline, built on first use; its pending expectations span connections. */
  cognition(): Cognition;
  /** The server's tools for one connection (the session key an id-less call falls back to). */
  tools(connection: ConnectionInfo): Tool[];
  readonly resources: readonly ResourceTemplateSpec[];
  readonly prompts: readonly Prompt[];
  /** Saves the recall index (if it was opened) and stops watching memory. */
  close(): void;
  /** Waits for the writes begun after answers (the gate's bootstrap records): call before exiting. */
  settle(): Promise<void>;
}

/** Builds the parts of the `firstlight` server for one home and project. */
export function createFirstlight(options: FirstlightOptions): Firstlight {
  const guidance = createGuidance({
    home: options.home,
    projectDir: options.projectDir,
    log: options.log,
    clock: options.clock,
  });
  const mind = createMind({ ...options, guidance });
  let recall: RecallIndex | undefined;
  let cognition: Cognition | undefined;
  const parts = {
    mind,
    guidance,
    recall: () => {
      recall ??= openRecallIndex(mind);
      return recall;
    },
    cognition: () => {
      cognition ??= new Cognition({
        home: mind.home,
        store: mind.memory,
        recall: parts.recall(),
        clock: mind.clock,
        scope: () => mind.memoryScope(),
      });
      return cognition;
    },
  };
  return {
    ...parts,
    tools: (connection) => mindServerTools(parts, connection),
    resources: mindServerResources(parts),
    prompts: mindServerPrompts(parts),
    close: () => {
      // Saves what the recall index learnt since its last save (servers close on shutdown).
      recall?.close();
      mind.close();
    },
    settle: () => mind.settle(),
  };
}
