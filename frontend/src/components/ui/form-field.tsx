import {
  useId,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';

/**
 * Labelled controls that show a field error next to the field: `aria-invalid` plus the
 * message linked through `aria-describedby`, so screen readers read it with the field.
 */

type FieldProps = {
  label: string;
  error?: string[] | string;
  hint?: ReactNode;
};

const joinErrors = (error: FieldProps['error']): string | undefined => {
  if (!error || error.length === 0) return undefined;
  return Array.isArray(error) ? error.join(' ') : error;
};

const useFieldIds = (error: FieldProps['error'], hint: ReactNode) => {
  const id = useId();
  const errorText = joinErrors(error);
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [hint ? hintId : null, errorText ? errorId : null].filter(Boolean).join(' ');
  return { id, errorId, hintId, errorText, describedBy: describedBy || undefined };
};

const FieldMessages = ({
  hint,
  hintId,
  errorText,
  errorId,
}: {
  hint: ReactNode;
  hintId: string;
  errorText?: string;
  errorId: string;
}) => (
  <>
    {hint ? (
      <p id={hintId} className="field-hint">
        {hint}
      </p>
    ) : null}
    {errorText ? (
      <p id={errorId} className="field-error">
        {errorText}
      </p>
    ) : null}
  </>
);

type InputFieldProps = FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, 'id'>;

export const InputField = ({ label, error, hint, className, ...inputProps }: InputFieldProps) => {
  const { id, errorId, hintId, errorText, describedBy } = useFieldIds(error, hint);
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        aria-invalid={errorText ? true : undefined}
        aria-describedby={describedBy}
        {...inputProps}
      />
      <FieldMessages hint={hint} hintId={hintId} errorText={errorText} errorId={errorId} />
    </div>
  );
};

type TextAreaFieldProps = FieldProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'>;

export const TextAreaField = ({ label, error, hint, className, rows = 2, ...props }: TextAreaFieldProps) => {
  const { id, errorId, hintId, errorText, describedBy } = useFieldIds(error, hint);
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} rows={rows} aria-invalid={errorText ? true : undefined} aria-describedby={describedBy} {...props} />
      <FieldMessages hint={hint} hintId={hintId} errorText={errorText} errorId={errorId} />
    </div>
  );
};

export type SelectOption = { value: string; label: string };
/** Rendered as an <optgroup>. */
export type SelectOptionGroup = { label: string; options: readonly SelectOption[] };

const isGroup = (item: SelectOption | SelectOptionGroup): item is SelectOptionGroup => 'options' in item;

const renderOption = (option: SelectOption) => (
  <option key={option.value} value={option.value}>
    {option.label}
  </option>
);

type SelectFieldProps = FieldProps & {
  options: readonly (SelectOption | SelectOptionGroup)[];
} & Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id' | 'children'>;

export const SelectField = ({ label, error, hint, options, className, ...selectProps }: SelectFieldProps) => {
  const { id, errorId, hintId, errorText, describedBy } = useFieldIds(error, hint);
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        aria-invalid={errorText ? true : undefined}
        aria-describedby={describedBy}
        {...selectProps}
      >
        {options.map((item) =>
          isGroup(item) ? (
            <optgroup key={`group:${item.label}`} label={item.label}>
              {item.options.map(renderOption)}
            </optgroup>
          ) : (
            renderOption(item)
          ),
        )}
      </select>
      <FieldMessages hint={hint} hintId={hintId} errorText={errorText} errorId={errorId} />
    </div>
  );
};

type CheckboxFieldProps = { label: string } & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>;

/** A single labelled checkbox, for on/off settings such as a chart's log scale. */
export const CheckboxField = ({ label, className, ...inputProps }: CheckboxFieldProps) => (
  <div className={['field', 'field-checkbox', className].filter(Boolean).join(' ')}>
    <label>
      <input type="checkbox" {...inputProps} /> {label}
    </label>
  </div>
);

type RadioOptionProps = { label: ReactNode } & Omit<InputHTMLAttributes<HTMLInputElement>, 'type'>;

/** One labelled radio button of a group (the group's `name` is passed on to the input). */
export const RadioOption = ({ label, ...inputProps }: RadioOptionProps) => (
  <label>
    <input type="radio" {...inputProps} /> {label}
  </label>
);
