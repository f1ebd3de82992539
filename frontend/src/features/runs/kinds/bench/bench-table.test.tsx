import { describe, expect, it } from 'vitest';

import { render, screen, within } from '@/testing/test-utils';
import type { BenchSummaryRow } from '@/types/api';

import { BenchTable, type BenchColumn } from './bench-table';

const ROW = {
  device_id: '5d1c0d9e-0000-4000-8000-000000000001',
  device_name: 'pi-lab-1',
  mechanism: 'aes-128-cbc',
  operation: 'encrypt',
  data_bytes: 16,
  n: 100,
} as BenchSummaryRow;

const COLUMNS: readonly BenchColumn[] = [
  { label: 'Mechanism', cell: (row, labelFor) => labelFor(row.mechanism) },
  { label: 'n', title: 'Repetitions', numeric: true, cell: (row) => row.n },
];

describe('BenchTable', () => {
  it('should draw the device, then each column, one row per result', () => {
    render(<BenchTable caption="Cipher benchmark" columns={COLUMNS} rows={[ROW]} labelFor={() => 'AES-128-CBC'} />);
    const table = screen.getByRole('table', { name: 'Cipher benchmark' });
    expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Device', 'Mechanism', 'n']);
    expect(within(table).getByRole('columnheader', { name: 'n' })).toHaveAttribute('title', 'Repetitions');
    expect(within(table).getByRole('rowheader', { name: 'pi-lab-1' })).toBeInTheDocument();
    expect(within(table).getByRole('cell', { name: 'AES-128-CBC' })).not.toHaveClass('num');
    expect(within(table).getByRole('cell', { name: '100' })).toHaveClass('num');
  });

  it('should say so across every column when no results were stored', () => {
    render(<BenchTable caption="Throughput" columns={COLUMNS} rows={[]} labelFor={(name) => name} />);
    const cell = screen.getByRole('cell', { name: 'No results were stored for this run.' });
    expect(cell).toHaveAttribute('colspan', '3');
  });
});
