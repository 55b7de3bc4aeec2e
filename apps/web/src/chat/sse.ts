// Reads server-sent events from a fetch body (the chat turn streams over the POST response, which
// EventSource cannot send). Incremental: feed it text as it arrives, get whole events back.
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';

  /** Adds received text; returns the events it completed. */
  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    // Events end with a blank line; CRLF and CR are line ends too.
    this.buffer = this.buffer.replace(/\r\n?/g, '\n');
    let end = this.buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message = parseBlock(block);
      if (message) out.push(message);
      end = this.buffer.indexOf('\n\n');
    }
    return out;
  }
}

function parseBlock(block: string): SseMessage | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id') id = value;
  }
  if (data.length === 0) return undefined;
  return { ...(id === undefined ? {} : { id }), event, data: data.join('\n') };
}
