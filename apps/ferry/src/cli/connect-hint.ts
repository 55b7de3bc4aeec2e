// E_AUTH_REQUIRED names Ferry's route that starts a server's OAuth flow (details.connectUrl, a
// path): the CLI has no browser, so it prints the whole URL for the user to open (docs/oauth.md).

/** "connect: <url> …", or undefined when the details name no connect route. */
export function connectHint(
  details: Record<string, unknown> | undefined,
  ferryUrl: string | URL,
): string | undefined {
  const path = details?.connectUrl;
  if (typeof path !== 'string' || !path.startsWith('/')) return undefined;
  const url = new URL(path, ferryUrl);
  return `connect: open ${url.href} in a browser signed in to Ferry, approve, then run the command again`;
}
