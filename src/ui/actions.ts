/**
 * The writes: edit, forget and restore a memory, through the same functions (their locks and
 * validation) as `firstlight memory edit|forget|restore`. Each answers with where to go next
 * (a 303 after success) or the page to show again with the problem (the user's text kept).
 */
import { type FirstlightError, UserError } from '../core/index.js';
import { forgetMemory, restoreMemory, saveEditedMemory } from '../mind/index.js';
import type { UiContext } from './context.js';
import { query } from './html.js';
import { memoryHref } from './views/memory.js';
import { type EditProblem, memoryDetail } from './views/memory-detail.js';

export type ActionResult =
  | { kind: 'redirect'; location: string }
  | { kind: 'again'; status: number; file: string; problem: EditProblem };

/** Saves the edited file text, only onto the text the edit began from (`base`, its hash). */
export async function saveEdit(
  context: UiContext,
  requested: string,
  form: URLSearchParams,
): Promise<ActionResult> {
  const detail = memoryDetail(context, requested);
  let text = form.get('text') ?? '';
  // Browsers send a textarea's lines with CRLF; the file keeps the line ends it had.
  if (!detail.text.includes('\r\n')) text = text.replace(/\r\n/g, '\n');
  if (form.get('base') !== detail.base) {
    return {
      kind: 'again',
      status: 409,
      file: detail.file,
      problem: {
        text,
        message: `memory/${detail.file} changed on disk after you opened it (another process or editor wrote it)`,
        hint: 'the form now holds your text and the page the file as it is: copy what you need and save again',
      },
    };
  }
  try {
    const result = await saveEditedMemory(context.home, detail.file, detail.text, text, {
      store: context.mind.memory,
    });
    return {
      kind: 'redirect',
      location: `${memoryHref(result.file)}${query({ done: result.changed ? 'saved' : 'unchanged' })}`,
    };
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    return {
      kind: 'again',
      status: error.code === 'MEMORY_CHANGED' ? 409 : 422,
      file: detail.file,
      problem: { text, message: error.message, hint: error.hint },
    };
  }
}

export async function forget(context: UiContext, requested: string): Promise<ActionResult> {
  const result = await forgetMemory(context.home, requested, {
    now: context.clock(),
    store: context.mind.memory,
  });
  return {
    kind: 'redirect',
    location: `/memory${query({ done: 'forgot', name: result.name, trashed: result.trashed_as })}`,
  };
}

export async function restore(context: UiContext, form: URLSearchParams): Promise<ActionResult> {
  const name = form.get('name') ?? '';
  const result = await restoreMemory(context.home, name, { store: context.mind.memory });
  return { kind: 'redirect', location: `${memoryHref(result.file)}${query({ done: 'restored' })}` };
}

/** Accepts or rejects a proposed (review mode) memory, as `firstlight memory review` does. */
export async function review(
  context: UiContext,
  verdict: 'accept' | 'reject',
  form: URLSearchParams,
): Promise<ActionResult> {
  const { acceptProposed, rejectProposed } = await import('../capture/index.js');
  const which = form.get('name') ?? '';
  const chosen = await (verdict === 'accept' ? acceptProposed : rejectProposed)(context.home, which);
  context.mind.memory.invalidate();
  return {
    kind: 'redirect',
    location: `/captured${query({ done: verdict === 'accept' ? 'accepted' : 'rejected', name: chosen[0]?.name ?? which })}`,
  };
}

/** The status a refused call's error maps to. */
export function statusOf(error: FirstlightError): number {
  if (error.code === 'NOT_FOUND') return 404;
  if (error.code === 'MEMORY_CHANGED' || error.code === 'MEMORY_EXISTS') return 409;
  return error instanceof UserError ? 400 : 500;
}
