import { describe, expect, it } from 'vitest';

import { db, experimentFixture } from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';

const EXPERIMENT_ID = 'e0000000-0000-4000-8000-000000000001';

describe('Experiment page of a matrix', () => {
  it('should show its axes as parameter → values, not list the values they override as fixed, and link to its results', async () => {
    db.experiments.push(
      experimentFixture({
        id: EXPERIMENT_ID,
        name: 'Security sweep',
        qos: 1,
        security: 'none',
        payload_size: 66,
        axes: [
          { name: 'security', values: [{ security: 'none' }, { security: 'aes-128-cbc' }] },
          { name: 'payload_size', values: [{ payload_size: 66 }, { payload_size: 1700 }] },
        ],
      }),
    );
    renderApp(`/experiments/${EXPERIMENT_ID}`);

    const parameters = await screen.findByRole('region', { name: 'Parameters' });
    const security = within(parameters).getByRole('list', { name: 'Values of security' });
    expect(within(security).getAllByRole('listitem')).toHaveLength(2);
    expect(within(parameters).getByRole('list', { name: 'Values of payload_size' })).toHaveTextContent('66 B1700 B');
    // The axes override these fixed values: they are not shown as fixed.
    expect(within(parameters).queryByText('Payload security')).not.toBeInTheDocument();
    expect(within(parameters).queryByText('Payload size (bytes)')).not.toBeInTheDocument();
    // What no axis varies stays listed.
    expect(within(parameters).getByText('QoS')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Results/ })).toHaveAttribute('href', `/experiments/${EXPERIMENT_ID}/results`);
  });
});
