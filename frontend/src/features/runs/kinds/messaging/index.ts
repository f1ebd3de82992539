import type { RunKindResults } from '../types';

import { MessagingResults } from './results';

/** A messaging run's page: its round trips, progress in messages sent and echoed, its messages' exports. */
export const MESSAGING_RUN: RunKindResults = {
  Results: MessagingResults,
  exports: {
    'records.csv': 'one row per message',
    'records.parquet': 'one row per message, typed and a tenth of the size',
    'summary.csv': 'one row per device and one for all devices',
    'summary.parquet': 'the summary, typed, with the devices’ facts in its metadata',
  },
};
