import type { PowerWarning } from '@/types/api';

type PowerWarningsProps = {
  warnings: readonly PowerWarning[];
  /** What the warnings are about, for the list's accessible name. */
  label: string;
};

/** Warnings that travel with figures: computed right, but barely measured or misaligned. */
export const PowerWarnings = ({ warnings, label }: PowerWarningsProps) =>
  warnings.length === 0 ? null : (
    <div role="status" className="alert alert-warning">
      <ul className="notes" aria-label={label}>
        {warnings.map((warning) => (
          <li key={warning.code} data-code={warning.code}>
            {warning.message}
          </li>
        ))}
      </ul>
    </div>
  );
