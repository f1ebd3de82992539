/** What a schema's issue says, and where: the path's first key is the form field. */
type Issue = { readonly path: readonly PropertyKey[]; readonly message: string };

/**
 * A failed parse's messages by form field (the first key of each issue's path), in the
 * order the schema found them. `isField` keeps only the fields the form shows; without it,
 * every issue's first key is taken to be one of `F`.
 */
export const issuesByField = <F extends string>(
  issues: readonly Issue[],
  isField: (key: string) => key is F = (_key): _key is F => true,
): Partial<Record<F, string[]>> => {
  const errors: Partial<Record<F, string[]>> = {};
  for (const issue of issues) {
    const key = String(issue.path[0] ?? '');
    if (isField(key)) (errors[key] ??= []).push(issue.message);
  }
  return errors;
};
