import { createContext, useContext, type ReactNode } from 'react';

/**
 * What a chart is about, for its downloads: the chart's title (its panel's heading) and the
 * subject of the page, e.g. the run's label. A PNG or SVG saved from the modebar carries both,
 * in the image and in the file name (issue #21), without every feature passing them down.
 */
export type ChartTitle = { title?: string; subject?: string };

const ChartTitleContext = createContext<ChartTitle>({});

export const useChartTitle = (): ChartTitle => useContext(ChartTitleContext);

/** The page's subject (a run's label) for every chart below it. */
export const ChartSubject = ({ subject, children }: { subject: string; children: ReactNode }) => {
  const outer = useChartTitle();
  return <ChartTitleContext.Provider value={{ ...outer, subject }}>{children}</ChartTitleContext.Provider>;
};

/** The chart's own title (set by ChartPanel), keeping the page's subject. */
export const ChartTitleProvider = ({ title, children }: { title: string; children: ReactNode }) => {
  const outer = useChartTitle();
  return <ChartTitleContext.Provider value={{ ...outer, title }}>{children}</ChartTitleContext.Provider>;
};

/** The heading drawn in a downloaded image: "Title — subject". */
export const chartHeading = ({ title, subject }: ChartTitle): string =>
  [title, subject].filter((part): part is string => Boolean(part)).join(' — ');

// File names keep letters, digits and dashes only: they go through every OS and mail client.
const MAX_FILENAME_CHARS = 100;

/** A download's file name from the title and subject; `fallback` when there is neither. */
export const chartFilename = ({ title, subject }: ChartTitle, fallback: string): string => {
  const slug = [subject, title]
    .filter((part): part is string => Boolean(part))
    .join(' ')
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, MAX_FILENAME_CHARS)
    .replace(/-+$/, '');
  return slug === '' ? fallback : slug;
};
