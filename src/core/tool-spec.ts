import type { z } from 'zod';

/** MCP tool annotations, set truly for every tool. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** What a tool handler may use besides its arguments (progress for long calls). */
export interface ToolCallExtra {
  signal?: AbortSignal;
  /** Reports progress; present only when the client asked for it (sent a progressToken). */
  progress?: (progress: number, total?: number, message?: string) => Promise<void>;
}

/**
 * A tool declared as data by a part folder; `src/servers/` registers it. The handler returns a
 * plain object: the server sends it as JSON text AND `structuredContent`. Throwing a
 * FirstlightError yields an `isError` result the model can read and recover from.
 */
export interface ToolSpec<
  Input extends z.ZodRawShape = z.ZodRawShape,
  Output extends z.ZodRawShape = z.ZodRawShape,
> {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: Output;
  annotations: ToolAnnotations;
  handler: (args: z.infer<z.ZodObject<Input>>, extra: ToolCallExtra) => Promise<z.infer<z.ZodObject<Output>>>;
  /** The text content; JSON of the output unless a legacy tool promises plain text. */
  text?: (output: z.infer<z.ZodObject<Output>>) => string;
}

/** Declares a tool with its types checked against its own schemas. */
export function defineTool<Input extends z.ZodRawShape, Output extends z.ZodRawShape>(
  spec: ToolSpec<Input, Output>,
): ToolSpec<Input, Output> {
  return spec;
}

/** Shorthands for the common annotation sets. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const WRITES_ADDITIVE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
