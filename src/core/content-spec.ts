import * as z from 'zod';

/** One resource as `resources/list` shows it. */
export interface ResourceListing {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

/** The text of one resource as `resources/read` returns it. */
export interface ResourceText {
  uri: string;
  mimeType: string;
  text: string;
}

/**
 * A family of MCP resources under one URI template, declared as data by a part folder (like a
 * ToolSpec); `src/servers/` registers it. `list` and `read` run on every request, so overrides a
 * user edits while the server runs show up without a restart. `read` throws a NotFoundError for
 * an unknown resource: the server turns that into the protocol's resource-not-found error.
 */
export interface ResourceTemplateSpec {
  /** Registration name, e.g. `guidance`. */
  name: string;
  /** RFC 6570 template with one variable per completable part, e.g. `firstlight://guidance/{name}`. */
  uriTemplate: string;
  title: string;
  description: string;
  mimeType: string;
  list: () => ResourceListing[];
  read: (uri: string, variables: Record<string, string>) => ResourceText;
  /** Candidate values per template variable, for `completion/complete`. */
  complete?: Record<string, (prefix: string) => string[]>;
  /**
   * A URI with no scheme (`main.md`, as the Symposium guidance seed names its resources) is read
   * as this template's one variable: `main.md` is `firstlight://guidance/main.md`.
   */
  bareNames?: boolean;
}

/** What a prompt may know of the request besides its arguments. */
export interface PromptContext {
  /** The MCP client's name from initialize (`clientInfo.name`), when known. */
  client?: string;
}

/** What a prompt returns: the text of its single user message. */
export interface PromptText {
  description?: string;
  text: string;
}

/**
 * An MCP prompt as a part folder declares it, typed by its argument shape; `definePrompt` turns
 * it into a Prompt. `get` returns the text of a single user message; `aliases` register the same
 * prompt under other names (`hi` for `yiasou`).
 */
export interface PromptSpec<Args extends z.ZodRawShape> {
  name: string;
  aliases?: readonly string[];
  title: string;
  description: string;
  args: Args;
  get: (args: z.output<z.ZodObject<Args>>, context: PromptContext) => PromptText;
}

/** A prompt with its types erased, as lists hold it: `get` parses its arguments with `args`. */
export interface Prompt {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly title: string;
  readonly description: string;
  readonly args: z.ZodRawShape;
  get(args: unknown, context?: PromptContext): PromptText;
}

/** Declares a prompt with its argument types checked against its own shape. */
export function definePrompt<Args extends z.ZodRawShape>(spec: PromptSpec<Args>): Prompt {
  let schema: z.ZodObject<Args> | undefined;
  return {
    name: spec.name,
    aliases: spec.aliases ?? [],
    title: spec.title,
    description: spec.description,
    args: spec.args,
    get(args, context = {}) {
      schema ??= z.object(spec.args);
      return spec.get(schema.parse(args), context);
    },
  };
}
