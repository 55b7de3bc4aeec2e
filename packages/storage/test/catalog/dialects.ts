// Which catalog dialects this run covers, kysely-style: FERRY_TEST_DIALECTS=sqlite narrows a
// local run; unset means all of them. A dialect left out is reported as skipped by name, while a
// dialect that is in the list and whose server is missing fails (see postgres.test.ts).

export const CATALOG_DIALECTS = ['sqlite', 'postgres'] as const;
export type CatalogDialectName = (typeof CATALOG_DIALECTS)[number];

export function enabledDialects(env: NodeJS.ProcessEnv = process.env): ReadonlySet<CatalogDialectName> {
  const raw = env.FERRY_TEST_DIALECTS?.trim();
  if (raw === undefined || raw === '') return new Set(CATALOG_DIALECTS);
  const names = raw.split(',').map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (!(CATALOG_DIALECTS as readonly string[]).includes(name)) {
      throw new Error(
        `FERRY_TEST_DIALECTS: unknown dialect "${name}"; expected a comma list of ${CATALOG_DIALECTS.join(', ')}`,
      );
    }
  }
  return new Set(names as CatalogDialectName[]);
}

export function dialectEnabled(name: CatalogDialectName): boolean {
  return enabledDialects().has(name);
}
