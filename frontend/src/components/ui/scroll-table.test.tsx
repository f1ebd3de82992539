import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';

import { COLUMNS_STORAGE_PREFIX, ScrollTable } from './scroll-table';

const Table = ({ chooserKey }: { chooserKey?: string }) => (
  <ScrollTable label="Devices table" chooserKey={chooserKey}>
    <table>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Model</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">pi-1</th>
          <td>online</td>
          <td>Pi 4</td>
        </tr>
      </tbody>
    </table>
  </ScrollTable>
);

afterEach(() => window.localStorage.clear());

describe('ScrollTable', () => {
  it('should put the table in a labelled region a keyboard can focus to scroll it', async () => {
    render(<Table />);
    const region = screen.getByRole('region', { name: 'Devices table' });
    expect(within(region).getByRole('table')).toBeInTheDocument();
    await userEvent.tab();
    expect(region).toHaveFocus();
    expect(screen.queryByText(/^Columns/)).not.toBeInTheDocument();
  });

  it('should offer every column but the first and hide an unchecked one, remembering it', async () => {
    render(<Table chooserKey="devices" />);
    const chooser = await screen.findByRole('group', { name: 'Columns shown in the Devices table' });
    expect(within(chooser).getAllByRole('checkbox')).toHaveLength(2);
    expect(within(chooser).getByRole('checkbox', { name: 'Status' })).toBeChecked();
    expect(within(chooser).queryByRole('checkbox', { name: 'Name' })).not.toBeInTheDocument();

    await userEvent.click(within(chooser).getByRole('checkbox', { name: 'Model' }));

    expect(screen.getByRole('region', { name: 'Devices table' })).toHaveClass('hide-col-3');
    expect(screen.getByText(/Columns \(1 hidden\)/)).toBeInTheDocument();
    expect(JSON.parse(window.localStorage.getItem(`${COLUMNS_STORAGE_PREFIX}devices`) ?? 'null')).toEqual(['Model']);
  });

  it('should hide the remembered columns on the next visit and show them again when checked', async () => {
    window.localStorage.setItem(`${COLUMNS_STORAGE_PREFIX}devices`, JSON.stringify(['Status']));
    render(<Table chooserKey="devices" />);
    const region = screen.getByRole('region', { name: 'Devices table' });
    const status = await screen.findByRole('checkbox', { name: 'Status' });
    expect(status).not.toBeChecked();
    expect(region).toHaveClass('hide-col-2');

    await userEvent.click(status);

    expect(region).not.toHaveClass('hide-col-2');
    expect(window.localStorage.getItem(`${COLUMNS_STORAGE_PREFIX}devices`)).toBe('[]');
  });

  it('should show every column when the remembered choice is not valid JSON', async () => {
    window.localStorage.setItem(`${COLUMNS_STORAGE_PREFIX}devices`, '{broken');
    render(<Table chooserKey="devices" />);
    expect(await screen.findByRole('checkbox', { name: 'Status' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'Model' })).toBeChecked();
  });
});
