import type { Device, Experiment, Run, RunRtt, User } from '@/types/api';

/**
 * In-memory backend state for the MSW handlers. Tests arrange it directly
 * (db.devices.push(...), db.session.userId = null) and it is reset after each test.
 */

export const TEST_PASSWORD = 'correct-horse';
export const TEST_CSRF_TOKEN = 'test-csrf-token';

export const testUser: User = {
  id: 1,
  username: 'alice',
  workspace: { id: '0b3f6a4e-7a8e-4e35-9a59-3f0c2d1e0001', name: "alice's workspace" },
};

export const deviceFixture = (overrides: Partial<Device> = {}): Device => ({
  id: '5d1c0d9e-0000-4000-8000-000000000001',
  name: 'pi-lab-1',
  online: true,
  last_seen_at: '2025-01-01T12:00:00Z',
  enrolled_at: '2025-01-01T10:00:00Z',
  facts: {
    hostname: 'pi-lab-1',
    cpu_model: 'Cortex-A72',
    cpu_cores: 4,
    ram_bytes: 4 * 1024 ** 3,
    kernel: '6.1.0-rpi7',
    os: 'Debian GNU/Linux 12',
    python_version: '3.11.2',
  },
  ...overrides,
});

type Db = {
  session: { userId: number | null };
  users: User[];
  devices: Device[];
  experiments: Experiment[];
  runs: Run[];
  rtt: Record<string, RunRtt>;
  /** Every X-CSRFToken header the server received on an unsafe request. */
  csrfHeaders: (string | null)[];
};

const initialDb = (): Db => ({
  session: { userId: testUser.id },
  users: [testUser],
  devices: [
    deviceFixture(),
    deviceFixture({
      id: '5d1c0d9e-0000-4000-8000-000000000002',
      name: 'pi-lab-2',
      online: false,
      facts: { hostname: 'pi-lab-2' },
    }),
  ],
  experiments: [],
  runs: [],
  rtt: {},
  csrfHeaders: [],
});

export const db: Db = initialDb();

export const resetDb = () => {
  Object.assign(db, initialDb());
};
