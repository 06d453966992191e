import * as z from 'zod';

/**
 * `runtime:` in `firstlight.yaml`: where persona profiles and the documents they point at are
 * found (`sources`), and how `firstlight runtime serve` serves (`service`).
 */
const sourceSchema = z
  .object({
    /** A URI prefix mapped to `dir` (`klappy://`); absent: `dir` is searched by persona name. */
    prefix: z
      .string()
      .regex(/^[a-z][a-z0-9+.-]*:/i, 'must start with a URI scheme, such as klappy://')
      .optional(),
    /** A directory: absolute, `~/…` (the user's home), or relative to the firstlight home. */
    dir: z.string().min(1),
  })
  .strict();

/** A task server's name: what a request writes in `servers` and its tools' prefix (`NAME__tool`). */
export const SERVER_NAME = /^[A-Za-z0-9_-]+$/;
const SERVER_NAME_RULE = 'a server name is letters, digits, _ and -';

/** A server `runtime serve` may start for a request that names it. */
const declaredServerSchema = z
  .object({
    command: z.string().min(1, 'the executable that starts the MCP server, e.g. npx'),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
  })
  .strict();
export type DeclaredServer = z.infer<typeof declaredServerSchema>;

export const runtimeSettingsSchema = z
  .object({
    /** Tried after `<home>/personas/`, in order; a URI takes the source with the longest matching prefix. */
    sources: z.array(sourceSchema).default([]),
    /**
     * Where the ledger lives: `embedded` (files under the project's `.firstlight/`) or a
     * Postgres URL shared by several replicas of `runtime serve`.
     */
    store: z
      .string()
      .regex(/^(embedded|postgres(ql)?:\/\/.+)$/, 'must be "embedded" or a postgres:// URL')
      .optional(),
    service: z
      .object({
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(7822),
        /** One-shot invocations running at once; more wait their turn. */
        concurrency: z.number().int().min(1).max(1000).default(8),
        /** A subscription with no event for this long is torn down (journaled `idle`). */
        subscription_idle_s: z.number().positive().max(604_800).default(600),
        /** The project whose `.firstlight/` holds the ledger (default: the directory it starts in). */
        project: z.string().min(1).optional(),
        /**
         * On a Postgres store: how long a replica's claim on a running invocation lasts without
         * renewal (it renews every third of it); a replica silent that long is taken to be lost
         * and another runs the invocation again as its next attempt.
         */
        lease_s: z.number().min(1).max(3600).default(30),
        /**
         * Whether a request through the service's doors (HTTP, MCP) may carry an operator
         * override. The override is the operator's declaration; off, only the CLI takes one.
         */
        allow_override: z.boolean().default(false),
        /**
         * The MCP servers a request may name in `servers`, by name: the service starts only
         * these, never a command line a request sends.
         */
        servers: z.record(z.string().regex(SERVER_NAME, SERVER_NAME_RULE), declaredServerSchema).default({}),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type RuntimeSettings = z.infer<typeof runtimeSettingsSchema>;
