import * as z from 'zod';
import { packageVersion } from '../version.js';
import type { Route } from './routes.js';
import { errorBody } from './schemas.js';

/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document, built from the route table and the very zod
 * schemas the service validates requests with (zod's JSON Schema output), so the reference and
 * the checks cannot disagree.
 */
export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const error = z.toJSONSchema(errorBody);
  for (const route of routes) {
    const parameters = [
      ...[...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...(route.query ? queryParameters(route.query) : []),
      ...(route.sse
        ? [
            {
              name: 'Last-Event-ID',
              in: 'header',
              required: false,
              schema: { type: 'string' },
              description: 'resume after this event id',
            },
          ]
        : []),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, description] of Object.entries(route.responses)) {
      const isError = Number(status) >= 400;
      responses[status] = {
        description,
        content:
          route.sse && !isError
            ? { 'text/event-stream': { schema: { type: 'string' } } }
            : { 'application/json': { schema: isError ? error : { type: 'object' } } },
      };
    }
    responses['401'] ??= {
      description: 'a token is set and the request lacks it',
      content: { 'application/json': { schema: error } },
    };
    responses['403'] ??= {
      description: 'a foreign Host or Origin',
      content: { 'application/json': { schema: error } },
    };
    const item = paths[route.path] ?? {};
    paths[route.path] = item;
    item[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: route.tags,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: z.toJSONSchema(route.body, { io: 'input' }) } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'firstlight runtime service',
      version: packageVersion(),
      description:
        'The persona runtime over HTTP: one_shot invocations, subscribed sessions, personas, the journal and handoffs. The same service speaks MCP at /mcp.',
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'FIRSTLIGHT_TOKEN, when the service has one' },
      },
    },
    security: [{ bearer: [] }, {}],
    paths,
  };
}

function queryParameters(schema: z.ZodObject): Record<string, unknown>[] {
  const json = z.toJSONSchema(schema, { io: 'input' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  }));
}
