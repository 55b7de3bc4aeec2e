// One limit/offset page of a list the route already holds whole (a user's calls, a name's
// versions), in the shape of the contract's pageSchema.
export function pageOf<T, Item>(
  all: readonly T[],
  { limit, offset }: { limit: number; offset: number },
  toItem: (value: T) => Item,
): { items: Item[]; total: number; limit: number; offset: number } {
  return { items: all.slice(offset, offset + limit).map(toItem), total: all.length, limit, offset };
}
