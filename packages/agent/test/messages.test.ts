import { describe, expect, it } from 'vitest';
import { fromStored, toModelMessages } from '../src/messages.js';

describe('stored messages back to the model', () => {
  it('replays a conversation, leaving out calls that never got a result and malformed rows', () => {
    const stored = [
      fromStored('user', { text: 'hi' }),
      fromStored('assistant', {
        text: '',
        toolCalls: [
          { id: 'a', name: 'report__csv_report', arguments: '{}' },
          { id: 'lost', name: 'slow__hang', arguments: '{}' },
          { bogus: true },
        ],
      }),
      fromStored('tool', { toolCallId: 'a', content: '{"status":"finished"}', name: 'report__csv_report' }),
      fromStored('assistant', { text: 'partial', status: 'cancelled', extra: 'dropped' }),
      fromStored('assistant', { text: '' }),
      fromStored('tool', { content: 'no call id' }),
      fromStored('system', { text: 'not a role we store' }),
    ];
    expect(stored.slice(5)).toEqual([undefined, undefined]);
    expect(stored[3]).toEqual({ role: 'assistant', text: 'partial', status: 'cancelled' });
    const history = stored.flatMap((m) => (m ? [m] : []));
    expect(toModelMessages(history)).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'a', name: 'report__csv_report', arguments: '{}' }],
      },
      { role: 'tool', toolCallId: 'a', content: '{"status":"finished"}' },
      { role: 'assistant', content: 'partial' },
    ]);
  });
});
