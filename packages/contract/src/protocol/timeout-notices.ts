// v2.1 §11.3: the notices a user sees while a tool runs long, with the spec's exact texts. The
// host's watchdog emits them; the web app shows them. Times are the spec defaults (seconds).

export interface TimeoutNotice {
  afterSeconds: number;
  message: string;
}

export const TIMEOUT_NOTICES: readonly TimeoutNotice[] = Object.freeze([
  { afterSeconds: 15, message: 'The tool is taking longer than expected. Please wait...' },
  { afterSeconds: 20, message: 'Still processing your request. This may take a few more moments.' },
  { afterSeconds: 25, message: 'Processing continues. The tool will timeout in 5 seconds if no progress.' },
]);

export const TIMEOUT_SECONDS = 30;

export const TIMEOUT_MESSAGE =
  'Tool failed to respond in a reasonable amount of time. Please try again or use a smaller dataset.';
