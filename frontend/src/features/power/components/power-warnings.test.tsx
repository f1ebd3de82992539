import { describe, expect, it } from 'vitest';

import { render, screen, within } from '@/testing/test-utils';
import type { PowerFigures } from '@/types/api';

import { batteryRows, FiguresTable } from './figures-table';
import { PowerWarnings } from './power-warnings';

const figures: PowerFigures = {
  window: { start_s: 3, end_s: 3.1, duration_s: 0, samples: 1 },
  mean_w: 1,
  sample_mean_w: 1,
  median_w: 1,
  min_w: 1,
  max_w: 1,
  energy_j: 0,
  baseline: { source: 'none', power_w: 0 },
  net_mean_w: 1,
  net_energy_j: 0,
  messages: 2,
  energy_per_message_j: 0,
  net_energy_per_message_j: 0,
  charge_mah: 0,
  supply_voltage_v: 5,
  reference: null,
  battery: {
    source: 'battery gauge',
    reading: 'b0000000-0000-4000-8000-000000000001',
    charge_mah: 0.5,
    voltage_v: 3.82,
    energy_j: 6.876,
    duration_s: 9.5,
    mean_w: 6.876 / 9.5,
    energy_per_message_j: 0.6876,
    net_energy_per_message_j: 0.2126,
  },
  warnings: [
    { code: 'few_samples', message: 'The window holds 1 sample (fewer than 10).' },
    { code: 'sample_period_exceeds_window', message: "The meter's sample period (1 s) is longer than the window." },
  ],
};

describe('power warnings and battery-gauge figures', () => {
  it('should list every warning with its message', () => {
    render(<PowerWarnings warnings={figures.warnings} label="Warnings about these figures" />);
    const list = screen.getByRole('list', { name: 'Warnings about these figures' });
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual(
      figures.warnings.map((w) => w.message),
    );
  });

  it('should render nothing when there is no warning', () => {
    const { container } = render(<PowerWarnings warnings={[]} label="Warnings" />);
    expect(container).toBeEmptyDOMElement();
  });

  it('should show the battery gauge beside the trace, labelled as such', () => {
    render(<FiguresTable figures={figures} />);
    const row = screen.getByRole('row', { name: /Energy, battery gauge \(J\)/ });
    expect(row).toHaveTextContent('6.876 (0.500 mAh × 3.6 × 3.82 V)');
    expect(screen.getByRole('row', { name: /Energy per message, battery gauge \(mJ\)/ })).toHaveTextContent('687.6');
    expect(screen.getByRole('row', { name: /Mean power \(W\), energy \/ duration/ })).toBeInTheDocument();
    expect(screen.getByRole('row', { name: /Sample mean \(W\)/ })).toBeInTheDocument();
  });

  it('should add no battery rows without a reading', () => {
    expect(batteryRows(null)).toEqual([]);
  });
});
