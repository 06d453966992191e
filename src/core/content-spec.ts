import type { z } from 'zod';

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
}

/**
 * An MCP prompt declared as data. `get` returns the text of a single user message; `aliases`
 * register the same prompt under other names (`hi` for `yiasou`).
 */
export interface PromptSpec<Args extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  aliases?: readonly string[];
  title: string;
  description: string;
  args: Args;
  get: (args: z.infer<z.ZodObject<Args>>) => { description?: string; text: string };
}

/** Declares a prompt with its argument types checked against its own shape. */
export function definePrompt<Args extends z.ZodRawShape>(spec: PromptSpec<Args>): PromptSpec<Args> {
  return spec;
}
