import { describe, expect, it } from 'vitest';

import { colourOf, MECHANISM_COLOURS, SIZE_PART_COLOURS } from './colours';
import { toGroupedBarFigure, toStackedBarFigure, type CategorySeries } from './figures';

const part = (key: string, name: string, bytes: number): CategorySeries => ({ name, colourKey: key, values: [bytes] });
const coloursByName = (figure: ReturnType<typeof toStackedBarFigure>) =>
  new Map(
    figure.data.map((trace) => [
      (trace as { name: string }).name,
      (trace as { marker?: { color?: string } }).marker?.color,
    ]),
  );

describe('chart colours', () => {
  it('should give a size part the same colour in two runs whatever parts and order each chart has', () => {
    const mqttRun = toStackedBarFigure(
      { categories: ['MQTT QoS 1'], series: [part('tcp', 'TCP header', 20), part('mqtt_header', 'MQTT header', 4), part('topic', 'Topic', 9), part('payload', 'Payload', 66)] },
      { categoryLabel: 'Run', valueLabel: 'Bytes' },
    );
    const aesRun = toStackedBarFigure(
      { categories: ['MQTT AES'], series: [part('payload', 'Payload', 80), part('iv', 'IV / nonce', 16), part('topic', 'Topic', 9), part('padding', 'Padding', 14)] },
      { categoryLabel: 'Run', valueLabel: 'Bytes' },
    );
    const [first, second] = [coloursByName(mqttRun), coloursByName(aesRun)];
    expect(first.get('Payload')).toBe(second.get('Payload'));
    expect(first.get('Topic')).toBe(second.get('Topic'));
    expect(first.get('Payload')).toBe(SIZE_PART_COLOURS.payload);
    expect(first.get('Payload')).not.toBe(first.get('Topic'));
  });

  it('should give a mechanism the same colour in every chart and a known one its named colour', () => {
    const one = toGroupedBarFigure(
      { categories: ['1 KiB'], series: [{ name: 'None', colourKey: 'none', values: [1] }, { name: 'AES-128-CBC', colourKey: 'aes-128-cbc', values: [2] }] },
      { categoryLabel: 'Size', valueLabel: 'Time' },
    );
    const other = toGroupedBarFigure(
      { categories: ['1 KiB'], series: [{ name: 'AES-128-CBC', colourKey: 'aes-128-cbc', values: [3] }] },
      { categoryLabel: 'Size', valueLabel: 'Time' },
    );
    expect(coloursByName(one).get('AES-128-CBC')).toBe(coloursByName(other).get('AES-128-CBC'));
    expect(colourOf('aes-128-cbc')).toBe(MECHANISM_COLOURS['aes-128-cbc']);
  });

  it('should give an unnamed key a stable colour, never by position', () => {
    expect(colourOf('speck-64-96')).toBe(colourOf('speck-64-96'));
    expect(colourOf('speck-64-96')).toMatch(/^#[0-9A-F]{6}$/i);
  });

  it('should name every size part the size model has, each with its own colour', () => {
    const colours = Object.values(SIZE_PART_COLOURS);
    expect(Object.keys(SIZE_PART_COLOURS)).toHaveLength(22);
    expect(new Set(colours).size).toBe(colours.length);
  });
});
