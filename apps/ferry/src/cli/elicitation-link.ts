// A URL-mode question during `ferry call` (MCP elicitation, SEP-1036): the server asks the user to
// open a link (a sign-in, a payment) out of band. The terminal shows who asks, the full URL, its
// host and any warning, and asks whether the user opened it; Ferry never opens or fetches the link
// itself. The server's text is printed with control characters escaped, so it cannot rewrite the
// terminal.
import { inspectElicitationLink } from '@ferry/contract';
import type { ElicitationQuestion, FormOutcome } from './elicitation-form.js';
import type { LineSource } from './line-source.js';

export const LINK_PROMPT = '  Did you open it? (y: I opened it, n: decline, !cancel: cancel): ';

/** The server's words, printable: control and invisible characters as \u{…} escapes. */
function printable(text: string): string {
  return text.replace(
    /[\p{Cc}\u200b-\u200f\u202a-\u202e\u2066-\u2069]/gu,
    (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`,
  );
}

/** "<server> asks you to open <url>: <reason>", as the CLI prints it. */
export function linkHeadline(question: Pick<ElicitationQuestion, 'server' | 'url' | 'message'>): string {
  const link = inspectElicitationLink(question.url ?? '');
  const url = link.ok ? link.href : (question.url ?? '');
  return `${printable(question.server ?? 'The server')} asks you to open ${printable(url)}: ${printable(question.message)}`;
}

/**
 * Prints the question and reads the answer: y (opened), n or !decline, !cancel; end of input
 * declines. A link that is not http(s) cannot be opened: the only answers are decline and cancel.
 */
export async function askLink(
  question: ElicitationQuestion,
  lines: LineSource,
  signal: AbortSignal,
): Promise<FormOutcome> {
  const link = inspectElicitationLink(question.url ?? '');
  lines.say(`\n? ${linkHeadline(question)}`);
  if (!link.ok) {
    lines.say(`  ! Ferry will not offer this link: ${link.reason}.`);
    const line = await lines.ask('  Decline? (Enter declines, !cancel cancels): ', signal);
    return line?.trim().toLowerCase() === '!cancel' ? { action: 'cancel' } : { action: 'decline' };
  }
  lines.say(
    `  site: ${printable(link.host)}. Open the link in your browser yourself; Ferry does not open it.`,
  );
  for (const warning of link.warnings) lines.say(`  ! ${warning}`);
  for (;;) {
    const line = await lines.ask(LINK_PROMPT, signal);
    if (line === null) return { action: 'decline' };
    const answer = line.trim().toLowerCase();
    if (answer === 'y' || answer === 'yes') return { action: 'accept', content: {}, files: {} };
    if (answer === 'n' || answer === 'no' || answer === '!decline') return { action: 'decline' };
    if (answer === '!cancel') return { action: 'cancel' };
    lines.say('    ! answer y or n');
  }
}
