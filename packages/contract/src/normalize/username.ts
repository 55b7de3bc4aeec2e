// DESIGN.md "Isolation": usernames become a path component (/tmp/{username}) and a header value,
// so anything outside this pattern is refused at authentication, before it reaches a path.
const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;

export function isValidUsername(value: unknown): value is string {
  return typeof value === 'string' && USERNAME_PATTERN.test(value);
}
