import * as z from 'zod';

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
  /** The MCP client's name from initialize (`clientInfo.name`), when known. */
  client?: string;
  /**
   * The client sent `_meta: {"firstlight/preview": true}` (doctor's probe): answer as usual but
   * record nothing (no session start, no gate record, no consumed resumption).
   */
  preview?: boolean;
}

/** The request `_meta` key a client sets to ask for a dry-run answer (see ToolCallExtra.preview). */
export const PREVIEW_META = 'firstlight/preview';

/**
 * A tool as a part folder declares it, typed by its own schemas; `defineTool` turns it into a
 * Tool. The handler returns a plain object: the server sends it as JSON text AND
 * `structuredContent`. Throwing a FirstlightError yields an `isError` result the model can read
 * and recover from.
 */
export interface ToolSpec<Input extends z.ZodRawShape, Output extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: Output;
  annotations: ToolAnnotations;
  handler: (
    args: z.output<z.ZodObject<Input>>,
    extra: ToolCallExtra,
  ) => Promise<z.output<z.ZodObject<Output>>>;
  /** The text content; JSON of the output unless a legacy tool promises plain text. */
  text?: (output: z.output<z.ZodObject<Output>>) => string;
}

/** What a tool call returns: the structured output and its text form. */
export interface ToolOutput {
  structured: Record<string, unknown>;
  text: string;
}

/**
 * A tool with its types erased, as lists and servers hold it (openai-agents-js stores its
 * `FunctionTool`s as `Tool` the same way): `call` takes unknown arguments and parses them with
 * the tool's own input schema before the typed handler sees them.
 */
export interface Tool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodRawShape;
  readonly output: z.ZodRawShape;
  readonly annotations: ToolAnnotations;
  call(args: unknown, extra: ToolCallExtra): Promise<ToolOutput>;
  /**
   * `call` for arguments already parsed with this tool's own `input` shape (an MCP server's
   * SDK does that before the handler runs): the same result without parsing them again.
   */
  callParsed(args: unknown, extra: ToolCallExtra): Promise<ToolOutput>;
}

/** Declares a tool with its types checked against its own schemas. */
export function defineTool<Input extends z.ZodRawShape, Output extends z.ZodRawShape>(
  spec: ToolSpec<Input, Output>,
): Tool {
  let schema: z.ZodObject<Input> | undefined;
  const callParsed = async (args: unknown, extra: ToolCallExtra): Promise<ToolOutput> => {
    const output = await spec.handler(args as z.output<z.ZodObject<Input>>, extra);
    return { structured: output, text: spec.text ? spec.text(output) : JSON.stringify(output) };
  };
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input,
    output: spec.output,
    annotations: spec.annotations,
    async call(args, extra) {
      schema ??= z.object(spec.input);
      return callParsed(schema.parse(args), extra);
    },
    callParsed,
  };
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
