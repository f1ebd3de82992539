import { describe, expect, it } from 'vitest';

import { networkProofFixture } from '@/testing/mocks/db';

import { parseNetworkProof, runNetworkProfile } from './network-proof';

describe('parseNetworkProof', () => {
  it('should read the backend, the verification figures, the forwarder per direction and the relay', () => {
    expect(parseNetworkProof(networkProofFixture())).toEqual({
      backend: 'userspace',
      verification: {
        ok: true,
        reason: 'median round trip 121.30 ms, expected 120.00 ± 12.00 ms',
        expectedMedianMs: 120,
        toleranceMs: 12,
        measuredMedianMs: 121.3,
        measuredP95Ms: 180.25,
        sent: 50,
        received: 50,
      },
      forwarder: [
        { direction: 'egress', forwarded: 250, droppedLoss: 0, droppedQueue: 0 },
        { direction: 'ingress', forwarded: 247, droppedLoss: 3, droppedQueue: 0 },
      ],
      netem: [],
      relay: { upP50Us: 20, downP50Us: 14, addedMedianUs: 34 },
    });
  });

  it('should read the netem backend’s qdisc statistics per direction instead of a forwarder', () => {
    const { forwarder: _, ...rest } = networkProofFixture();
    const proof = parseNetworkProof({
      ...rest,
      backend: 'netem',
      netem: {
        ifb: 'isbi-r1234abcde',
        tc: ['tc -n isb-r1234abcde qdisc add dev isbd-r1234abcde root handle 1: netem delay 20000us'],
        readback: { egress: { delay_us: 20000 }, ingress: null },
        counters: { egress: { bytes: 3700, packets: 50, drops: 0, overlimits: 0 }, ingress: null },
      },
    });
    expect(proof?.backend).toBe('netem');
    expect(proof?.forwarder).toEqual([]);
    expect(proof?.netem).toEqual([{ direction: 'egress', packets: 50, bytes: 3700, drops: 0 }]);
  });

  it('should be null without a proof', () => {
    expect(parseNetworkProof(null)).toBeNull();
    expect(parseNetworkProof(undefined)).toBeNull();
    expect(parseNetworkProof('userspace')).toBeNull();
  });

  it('should keep what it can read of a partial or malformed proof', () => {
    expect(
      parseNetworkProof({
        backend: 7,
        verification: { ok: 'yes', sent: -1, received: 3.5, measured_median_ms: 40 },
        forwarder: 'gone',
        relay: { up: { hop_p50_us: 12 }, down: { hop_p50_us: null } },
      }),
    ).toEqual({
      backend: null,
      verification: {
        ok: null,
        reason: null,
        expectedMedianMs: null,
        toleranceMs: null,
        measuredMedianMs: 40,
        measuredP95Ms: null,
        sent: null,
        received: null,
      },
      forwarder: [],
      netem: [],
      relay: { upP50Us: 12, downP50Us: null, addedMedianUs: null },
    });
    expect(parseNetworkProof({})).toEqual({ backend: null, verification: null, forwarder: [], netem: [], relay: null });
  });
});

describe('runNetworkProfile', () => {
  it('should read the frozen profile’s id and name, and be null for a run without one', () => {
    expect(runNetworkProfile({ network_profile: { id: 'p1', name: 'SRUP 5', spec: {} } })).toEqual({
      id: 'p1',
      name: 'SRUP 5',
    });
    expect(runNetworkProfile({ qos: 1 })).toBeNull();
    expect(runNetworkProfile({ network_profile: null })).toBeNull();
    expect(runNetworkProfile({ network_profile: 'odd' })).toEqual({ id: null, name: 'Unnamed profile' });
  });
});
