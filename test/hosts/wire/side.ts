/**
 * @module Answers to what is not a scripted model turn: side requests (count_tokens, model
 * listings, telemetry) and a host's own structured-output helper calls (Gemini CLI's model
 * router and next-speaker check), answered with the smallest JSON their schema accepts.
 */
import { field, type RecordedRequest, type Turn } from './types.js';

/** The JSON schema a request asks its answer to follow, if any (Gemini's generationConfig). */
function responseSchema(request: RecordedRequest): unknown {
  const config = field(request.body, 'generationConfig');
  return field(config, 'responseJsonSchema') ?? field(config, 'responseSchema');
}

/** Whether a request asks for schema-shaped JSON rather than a conversational turn. */
export function isStructuredOutputRequest(request: RecordedRequest): boolean {
  const config = field(request.body, 'generationConfig');
  return request.wire === 'gemini' && field(config, 'responseMimeType') === 'application/json';
}

/** The smallest value a JSON schema accepts: required properties filled, enums at their first entry. */
export function sampleOf(schema: unknown): unknown {
  const enumValues = field(schema, 'enum');
  if (Array.isArray(enumValues) && enumValues.length > 0) return enumValues[0];
  switch (String(field(schema, 'type') ?? 'object').toLowerCase()) {
    case 'string':
      return 'scripted';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default: {
      const properties = (field(schema, 'properties') ?? {}) as Record<string, unknown>;
      const required = field(schema, 'required');
      const keys = Array.isArray(required) ? (required as string[]) : Object.keys(properties);
      return Object.fromEntries(keys.map((k) => [k, sampleOf(properties[k])]));
    }
  }
}

/** A side turn's answer: the schema's sample as JSON text, or "{}" without a schema. */
export function schemaAnswer(request: RecordedRequest): Turn {
  const schema = responseSchema(request);
  return { text: JSON.stringify(schema === undefined ? {} : sampleOf(schema)) };
}

/** A sensible answer to a request that is not a model turn. */
export function sideAnswer(method: string, path: string, body: unknown): unknown {
  if (path.endsWith('/count_tokens')) return { input_tokens: Math.ceil(JSON.stringify(body).length / 4) };
  if (path.endsWith(':countTokens')) return { totalTokens: Math.ceil(JSON.stringify(body).length / 4) };
  if (method === 'GET' && /\/models\/?$/.test(path)) {
    const id = 'scripted-model';
    return {
      object: 'list',
      data: [
        { id, object: 'model', created: 0, owned_by: 'firstlight-test', type: 'model', display_name: id },
      ],
      models: [],
      has_more: false,
    };
  }
  return {};
}
