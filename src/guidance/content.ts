import * as z from 'zod';
import { definePrompt, NotFoundError, type Prompt, type ResourceTemplateSpec } from '../core/index.js';
import { BOOT_PROMPT_ALIASES, BOOT_PROMPT_NAME } from './boot-prompt.js';
import { GUIDANCE_URI_PREFIX } from './docs.js';
import { findDoc, type Guidance } from './guidance.js';

export const GUIDANCE_MIME_TYPE = 'text/markdown';

/** Each guidance doc as the resource `firstlight://guidance/<name>`, listed and read live. */
export function guidanceResources(guidance: Guidance): ResourceTemplateSpec[] {
  return [
    {
      name: 'guidance',
      uriTemplate: `${GUIDANCE_URI_PREFIX}{name}`,
      title: 'Guidance',
      description:
        'Guidance docs (collaboration patterns, coding guidelines, walkthrough format, and overrides from the home and the project).',
      mimeType: GUIDANCE_MIME_TYPE,
      bareNames: true,
      list: () =>
        guidance.load().docs.map((d) => ({
          uri: d.uri,
          name: d.name,
          title: d.title,
          description: d.description,
          mimeType: GUIDANCE_MIME_TYPE,
        })),
      read: (uri, variables) => {
        const doc = findDoc(guidance.load().docs, variables.name ?? '');
        if (!doc) {
          throw new NotFoundError(
            `resource ${uri} not found`,
            `read one of: ${guidance
              .load()
              .docs.map((d) => d.uri)
              .join(', ')}`,
          );
        }
        return { uri: doc.uri, mimeType: GUIDANCE_MIME_TYPE, text: doc.text };
      },
      complete: {
        name: (prefix) =>
          guidance
            .load()
            .docs.map((d) => d.name)
            .filter((n) => n.startsWith(prefix)),
      },
    },
  ];
}

/** The `yiasou` boot prompt (alias `hi`). */
export function guidancePrompts(guidance: Guidance): Prompt[] {
  const yiasou = definePrompt({
    name: BOOT_PROMPT_NAME,
    aliases: BOOT_PROMPT_ALIASES,
    title: 'Boot sequence (yiasou)',
    description:
      'Start a session: greeting, every guidance doc (inline, or named with how to load it: setting guidance.yiasou) with its directive, then the taskspace and its initial task (or, with none, ask the user what to work on).',
    args: {
      collaborator: z.string().max(200).optional().describe('Who you are working with this session.'),
    },
    get: ({ collaborator }, { client }) => ({
      description: 'firstlight boot sequence',
      text: guidance.bootPrompt(collaborator, client),
    }),
  });
  return [yiasou];
}
