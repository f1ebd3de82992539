/** A text field's value from a submitted form ('' when absent; a file is not text). */
export const formText = (form: FormData, name: string): string => {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
};
