
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDecimal, MISSING } from '@/lib/format';
import type { PowerBatteryFigures, PowerFigures } from '@/types/api';

import {
  formatCount,
  formatJoules,
  formatMillijoules,
  formatPercent,
  formatSeconds,
  formatWatts,
  joulesToMah,
} from './energy';

const BASELINE_SOURCES: Record<NonNullable<PowerFigures['baseline']>['source'], string> = {
  trace: 'from a baseline trace',
  constant: 'constant',
  none: 'none',
};

type Row = readonly [label: string, value: string];

/** The battery gauge's figures, beside the trace's: mAh × 3.6 × V over the run. */
export const batteryRows = (battery: PowerBatteryFigures | null): Row[] =>
  battery === null
    ? []
    : [
        [
          'Energy, battery gauge (J)',
          `${formatJoules(battery.energy_j)} (${formatDecimal(battery.charge_mah, 3)} mAh × 3.6 × ` +
            `${formatDecimal(battery.voltage_v, 2)} V)`,
        ],
        ['Mean power, battery gauge (W)', formatWatts(battery.mean_w)],
        ['Energy per message, battery gauge (mJ)', formatMillijoules(battery.energy_per_message_j)],
        ['Net energy per message, battery gauge (mJ)', formatMillijoules(battery.net_energy_per_message_j)],
      ];

const rowsOf = (figures: PowerFigures): Row[] => {
  const { window } = figures;
  const baseline = figures.baseline;
  const voltage = figures.supply_voltage_v;
  const rows: Row[] = [
    [
      'Window',
      `${formatDecimal(window.start_s, 3)}–${formatDecimal(window.end_s, 3)} s ` +
        `(${formatSeconds(window.duration_s)}, ${formatCount(window.samples)} samples)`,
    ],
    ['Mean power (W), energy / duration', formatWatts(figures.mean_w)],
    ['Sample mean (W), plain average of the samples', formatWatts(figures.sample_mean_w)],
    ['Median power (W)', formatWatts(figures.median_w)],
    ['Min power (W)', formatWatts(figures.min_w)],
    ['Max power (W)', formatWatts(figures.max_w)],
    ['Energy (J)', formatJoules(figures.energy_j)],
    [
      'Baseline power (W)',
      !baseline || baseline.source === 'none'
        ? MISSING
        : `${formatWatts(baseline.power_w)} (${BASELINE_SOURCES[baseline.source]})`,
    ],
    ['Net mean power (W)', formatWatts(figures.net_mean_w)],
    ['Net energy (J)', formatJoules(figures.net_energy_j)],
    ['Messages', formatCount(figures.messages)],
    ['Energy per message (mJ)', formatMillijoules(figures.energy_per_message_j)],
    ['Net energy per message (mJ)', formatMillijoules(figures.net_energy_per_message_j)],
    [
      voltage === null ? 'Charge (mAh)' : `Charge at ${formatDecimal(voltage, 2)} V (mAh)`,
      formatDecimal(figures.charge_mah, 3),
    ],
  ];
  // What the workload alone draws from a supply at that voltage.
  if (voltage !== null && baseline && baseline.source !== 'none') {
    const netCharge = joulesToMah(figures.net_energy_j, voltage);
    rows.push([`Net charge at ${formatDecimal(voltage, 2)} V (mAh)`, formatDecimal(netCharge, 3)]);
  }
  rows.push(...batteryRows(figures.battery));
  if (figures.reference) {
    rows.push(
      [`Reference mean power (W), ${figures.reference.name}`, formatWatts(figures.reference.mean_w)],
      ['Overhead vs reference (W)', formatWatts(figures.reference.overhead_w)],
      ['Overhead vs reference (%)', formatPercent(figures.reference.overhead_pct)],
    );
  }
  return rows;
};

type FiguresTableProps = { figures: PowerFigures };

/** Energy figures of one window, one per row. */
export const FiguresTable = ({ figures }: FiguresTableProps) => (
  <ScrollTable label="Figures">
    <table className="table table-figures">
      <caption className="visually-hidden">Figures</caption>
      <tbody>
        {rowsOf(figures).map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td className="num">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </ScrollTable>
);
