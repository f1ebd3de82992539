import type { Preset } from '@/types/api';

type PresetChooserProps = {
  presets: readonly Preset[];
  /** The slug of the preset the form holds, if any. */
  chosen: string | null;
  onChoose: (slug: string | null) => void;
};

/**
 * "Start from a preset": each paper's design with its source, the tables it reproduces and
 * what to know before running it. Choosing one fills the form; the devices are still picked.
 */
export const PresetChooser = ({ presets, chosen, onChoose }: PresetChooserProps) => (
  <section className="panel" aria-labelledby="presets-heading">
    <h2 id="presets-heading" className="panel-title">
      Start from a preset
    </h2>
    <ul className="preset-list">
      {presets.map((preset) => (
        <li key={preset.slug} className={preset.slug === chosen ? 'preset preset-chosen' : 'preset'}>
          <article aria-labelledby={`preset-${preset.slug}`}>
            <h3 id={`preset-${preset.slug}`} className="preset-title">
              {preset.title}
            </h3>
            <p className="preset-paper">
              {preset.source_url ? (
                <a href={preset.source_url} target="_blank" rel="noreferrer">
                  {preset.paper}
                </a>
              ) : (
                preset.paper
              )}
            </p>
            <p className="muted">
              From {preset.tables}. The paper used {preset.devices} device{preset.devices === 1 ? '' : 's'}.
            </p>
            {preset.notes.length > 0 ? (
              <ul className="preset-notes" aria-label={`Notes on ${preset.title}`}>
                {preset.notes.map((note) => (
                  <li key={note}>{note}</li>
                ))}
              </ul>
            ) : null}
            {preset.slug === chosen ? (
              <button type="button" className="button" onClick={() => onChoose(null)}>
                Start from scratch instead
              </button>
            ) : (
              <button
                type="button"
                className="button"
                onClick={() => onChoose(preset.slug)}
              >
                {/* The visible words start the accessible name (axe label-content-name-mismatch). */}
                Use the preset{' '}
                <span className="visually-hidden">{preset.title}</span>
              </button>
            )}
          </article>
        </li>
      ))}
    </ul>
  </section>
);
