/** A value of one query parameter; a list repeats the parameter (`?trace=a&trace=b`). */
export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

/**
 * `?key=value&...` for the given parameters, in their order, or '' when none is set.
 * null, undefined, '' and NaN are left out, so optional filters can be passed as they are.
 */
export const toQueryString = (params: Readonly<Record<string, QueryValue>>): string => {
  const search = new URLSearchParams();
  const add = (key: string, value: string | number | boolean) => {
    if (typeof value === 'number' && !Number.isFinite(value)) return;
    if (value === '') return;
    search.append(key, String(value));
  };
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      for (const item of value as readonly (string | number)[]) add(key, item);
    } else {
      add(key, value as string | number | boolean);
    }
  }
  const text = search.toString();
  return text ? `?${text}` : '';
};
