// Reads server-sent events from a fetch body (the chat turn streams over the POST response, which
// EventSource cannot send). Incremental: feed it text as it arrives, get whole events back. The
// format itself is eventsource-parser's (WHATWG rules, a CRLF split across chunks included).
import { createParser } from 'eventsource-parser';

export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

export class SseParser {
  private completed: SseMessage[] = [];
  private readonly parser = createParser({
    onEvent: (message) =>
      this.completed.push({
        ...(message.id === undefined ? {} : { id: message.id }),
        event: message.event ?? 'message',
        data: message.data,
      }),
  });

  /** Adds received text; returns the events it completed. */
  push(text: string): SseMessage[] {
    this.parser.feed(text);
    const out = this.completed;
    this.completed = [];
    return out;
  }
}
