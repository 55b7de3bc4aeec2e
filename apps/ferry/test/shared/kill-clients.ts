import type { Redis } from 'ioredis';

/**
 * Kills the Redis connections whose client name starts with `name`, as a network drop would
 * (CLIENT KILL has no name filter, so by id from CLIENT LIST). Returns how many.
 */
export async function killClients(client: Redis, name: string): Promise<number> {
  const list = (await client.client('LIST')) as string;
  const ids = list
    .split('\n')
    .map((line) => Object.fromEntries(line.split(' ').map((pair) => pair.split('=', 2) as [string, string])))
    .filter((fields) => fields.name?.startsWith(name))
    .map((fields) => fields.id as string);
  for (const id of ids) await client.client('KILL', 'ID', id);
  return ids.length;
}
