import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/** localStorage keys of the column choosers: `iotsecbench.columns.<chooserKey>`. */
export const COLUMNS_STORAGE_PREFIX = 'iotsecbench.columns.';
// index.css has one `.hide-col-N` rule per column from 2 to this; the first column (the row's
// name, sticky) can never be hidden. The widest table (run statistics) has 15 columns.
export const MAX_HIDEABLE_COLUMN = 24;

const readHidden = (key: string): ReadonlySet<string> => {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(COLUMNS_STORAGE_PREFIX + key) ?? '[]');
    return new Set(Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === 'string') : []);
  } catch {
    // A hand-edited or corrupt entry: show every column rather than fail the page.
    return new Set();
  }
};

const writeHidden = (key: string, hidden: ReadonlySet<string>) => {
  try {
    window.localStorage.setItem(COLUMNS_STORAGE_PREFIX + key, JSON.stringify([...hidden].sort()));
  } catch {
    // Storage full or disabled (private mode): the choice lasts until the page reloads.
  }
};

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, index) => value === b[index]);

/** The header texts of the table's last header row, one per column. */
const columnNames = (box: HTMLElement): string[] => {
  const row = box.querySelector('thead tr:last-child');
  return row ? Array.from(row.children, (cell) => cell.textContent?.trim() ?? '') : [];
};

type ScrollTableProps = {
  /** Names the scrolling region for screen readers (e.g. "Experiments table"). */
  label: string;
  /**
   * Turns the column chooser on; the chosen hidden columns are remembered under this key in
   * localStorage, by header text, so a column added later shows by default.
   */
  chooserKey?: string;
  /** Extra classes for the outer box (e.g. `panel`). */
  className?: string;
  children: ReactNode;
};

/**
 * A table (or a few) that scrolls sideways inside its own box instead of widening the page,
 * with its first column sticky. The box is focusable so a keyboard can scroll it (axe-core's
 * scrollable-region-focusable rule). With `chooserKey`, a "Columns" menu shows and hides
 * columns (by CSS on the box, so the table's own markup stays as it is).
 */
export const ScrollTable = ({ label, chooserKey, className, children }: ScrollTableProps) => {
  const boxRef = useRef<HTMLDivElement>(null);
  const chooserId = useId();
  const [columns, setColumns] = useState<readonly string[]>([]);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(() =>
    chooserKey ? readHidden(chooserKey) : new Set(),
  );

  useEffect(() => {
    const box = boxRef.current;
    if (!chooserKey || !box) return;
    // The headers can change after mount (a run's kind decides its columns): follow them.
    const read = () => setColumns((current) => {
      const next = columnNames(box);
      return sameList(current, next) ? current : next;
    });
    read();
    const observer = new MutationObserver(read);
    observer.observe(box, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [chooserKey]);

  const toggle = (name: string) => {
    if (!chooserKey) return;
    const next = new Set(hidden);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setHidden(next);
    writeHidden(chooserKey, next);
  };

  const hideClasses = columns
    .map((name, index) => (index > 0 && index < MAX_HIDEABLE_COLUMN && hidden.has(name) ? `hide-col-${index + 1}` : ''))
    .filter(Boolean);
  const choosable = columns.slice(1, MAX_HIDEABLE_COLUMN);
  const hiddenCount = choosable.filter((name) => hidden.has(name)).length;

  return (
    <div className={className ? `scroll-table ${className}` : 'scroll-table'}>
      {chooserKey && choosable.length > 0 ? (
        <details className="column-chooser">
          <summary>
            Columns{hiddenCount > 0 ? ` (${hiddenCount} hidden)` : ''}
            <span className="visually-hidden"> of the {label}</span>
          </summary>
          <fieldset>
            <legend className="visually-hidden">Columns shown in the {label}</legend>
            {choosable.map((name, index) => (
              <label key={`${index}-${name}`} htmlFor={`${chooserId}-${index}`}>
                <input
                  id={`${chooserId}-${index}`}
                  type="checkbox"
                  checked={!hidden.has(name)}
                  onChange={() => toggle(name)}
                />{' '}
                {name || `Column ${index + 2}`}
              </label>
            ))}
          </fieldset>
        </details>
      ) : null}
      <div
        ref={boxRef}
        className={['table-wrap', ...hideClasses].join(' ')}
        role="region"
        aria-label={label}
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrolling region must be reachable by keyboard to scroll it (WCAG 2.1.1, axe scrollable-region-focusable)
        tabIndex={0}
      >
        {children}
      </div>
    </div>
  );
};
