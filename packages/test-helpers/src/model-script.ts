// The script a scripted model plays, one reply per request, and the bookkeeping both players share:
// the HTTP server (scripted-model-server.ts) and the in-process client (scripted-model-client.ts).
// A script of plain replies works with either; a function step sees the request as its player
// records it.

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** An object is sent as JSON; a string as is (to send broken JSON). */
  arguments: unknown;
}

export interface ScriptedReply {
  /** Streamed one chunk per piece. */
  text?: string[];
  toolCalls?: ScriptedToolCall[];
  /** After the text chunks, keep the stream open until the client goes away (cancel tests). */
  hold?: boolean;
  /** Fail as the endpoint answering this HTTP status would, instead of streaming. */
  status?: number;
}

export type ScriptStep<Request> = ScriptedReply | ((request: Request) => ScriptedReply);

export interface ScriptPlayer<Request> {
  readonly requests: Request[];
  /** Replaces the script and forgets earlier requests. */
  play(steps: ScriptStep<Request>[]): void;
  /** Resolves with the n-th request (1-based) once it has arrived. */
  request(n: number): Promise<Request>;
  /** Records an arrived request; its reply, or an error text when the script has none for it. */
  next(request: Request): { reply: ScriptedReply } | { error: string };
}

export function createScriptPlayer<Request>(): ScriptPlayer<Request> {
  let steps: ScriptStep<Request>[] = [];
  let requests: Request[] = [];
  let waiters: { n: number; resolve: (request: Request) => void }[] = [];
  return {
    get requests() {
      return requests;
    },
    play(next) {
      steps = next;
      requests = [];
      waiters = [];
    },
    request(n) {
      const found = requests[n - 1];
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    next(request) {
      requests.push(request);
      const n = requests.length;
      for (const waiter of waiters.filter((w) => w.n === n)) waiter.resolve(request);
      waiters = waiters.filter((w) => w.n !== n);
      const step = steps[n - 1];
      if (step === undefined) return { error: `no scripted reply for request ${n}` };
      return { reply: typeof step === 'function' ? step(request) : step };
    },
  };
}

/** The arguments text a tool call carries. */
export function argumentsText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** The error message of a `status` reply. */
export function failureText(status: number): string {
  return `scripted failure ${status}`;
}
