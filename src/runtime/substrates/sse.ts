/**
 * A server-sent-events reader for `fetch` response bodies: enough of the spec for model APIs
 * (`event:` and multi-line `data:` fields, comments, CRLF), nothing more.
 */

export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/** Yields each event of an SSE body as it arrives. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline = buffer.search(/\r?\n|\r/);
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        const width = buffer.startsWith('\r\n', newline) ? 2 : 1;
        buffer = buffer.slice(newline + width);
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') };
          event = undefined;
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const name = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (name === 'event') event = value;
          else if (name === 'data') data.push(value);
        }
        newline = buffer.search(/\r?\n|\r/);
      }
      if (done) break;
    }
    if (data.length > 0) yield { event, data: data.join('\n') };
  } finally {
    // Stops the download when the consumer leaves early (an error event ended the turn).
    await reader.cancel().catch(() => undefined);
  }
}
