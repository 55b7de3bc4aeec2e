// The label a person sees for a schema property (tool forms in the web app, elicitation prompts in
// the CLI): the schema's own `title` when it has one, else the property name made readable.

/** "chart_column" → "Chart column", "maxRows" → "Max Rows"; a non-blank `title` wins. */
export function fieldLabel(name: string, schema: { readonly title?: unknown }): string {
  if (typeof schema.title === 'string' && schema.title.trim()) return schema.title;
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
