import * as z from 'zod';

import type { Run } from '@/types/api';

/**
 * The network conditions of a messaging run, read from what the run stores:
 * `spec.network_profile` (`{id, name, spec}`, frozen when the run was created) and each
 * device's proof of enforcement (`devices[].network`, the agent's `network_enforced` event;
 * docs/network-emulation.md, "Enforcing a run's profile"; docs/control-plane.md §5).
 *
 * Both come from JSON the frontend does not type (the spec is a dict, the proof comes from
 * devices and from agents of any version), so they are parsed leniently: unknown keys are
 * allowed, and a missing or malformed figure becomes null and is shown as missing, without
 * hiding the rest.
 */

/** A field that is left out (null) when it is missing or not what it should be. */
const lenient = <T extends z.ZodType>(schema: T) => schema.nullish().catch(null);

const count = lenient(z.number().int().nonnegative());
const figure = lenient(z.number().finite());
const text = lenient(z.string());

const frozenProfileSchema = z.looseObject({ id: text, name: text });

const verificationSchema = z.looseObject({
  ok: lenient(z.boolean()),
  reason: text,
  expected_median_ms: figure,
  measured_median_ms: figure,
  measured_p95_ms: figure,
  tolerance_ms: figure,
  sent: count,
  received: count,
});

/** One direction's forwarder counters (the agent's netemu/shaper.py `Counters`). */
const forwarderDirectionSchema = z.looseObject({
  forwarded: count,
  dropped_loss: count,
  dropped_queue: count,
});

/** One direction's netem qdisc statistics as `tc -s` reports them (netemu/netem.py `STAT_KEYS`). */
const netemDirectionSchema = z.looseObject({ packets: count, bytes: count, drops: count });

/** One direction of the relay (netemu/relay.py): the time to pass a chunk on. */
const relayDirectionSchema = z.looseObject({ hop_p50_us: figure });

const proofSchema = z.looseObject({
  backend: text,
  verification: lenient(verificationSchema),
  forwarder: lenient(
    z.looseObject({ egress: lenient(forwarderDirectionSchema), ingress: lenient(forwarderDirectionSchema) }),
  ),
  netem: lenient(
    z.looseObject({
      counters: lenient(
        z.looseObject({ egress: lenient(netemDirectionSchema), ingress: lenient(netemDirectionSchema) }),
      ),
    }),
  ),
  relay: lenient(z.looseObject({ up: lenient(relayDirectionSchema), down: lenient(relayDirectionSchema) })),
});

export type RunNetworkProfile = { id: string | null; name: string };

/** The profile a run was measured under, or null for a run without one. */
export const runNetworkProfile = (spec: Run['spec']): RunNetworkProfile | null => {
  if (spec.network_profile === undefined || spec.network_profile === null) return null;
  const parsed = frozenProfileSchema.safeParse(spec.network_profile);
  if (!parsed.success) return { id: null, name: 'Unnamed profile' };
  return { id: parsed.data.id ?? null, name: parsed.data.name ?? 'Unnamed profile' };
};

/** The forwarder's directions, named from the device's side as the profile names them. */
export const FORWARDER_DIRECTIONS = ['egress', 'ingress'] as const;
export type ForwarderDirection = (typeof FORWARDER_DIRECTIONS)[number];

export type ForwarderCounters = {
  direction: ForwarderDirection;
  forwarded: number | null;
  droppedLoss: number | null;
  droppedQueue: number | null;
};

/** One direction's netem qdisc, from the kernel's statistics at the end of the run. */
export type NetemCounters = {
  direction: ForwarderDirection;
  packets: number | null;
  bytes: number | null;
  drops: number | null;
};

export type NetworkProof = {
  backend: string | null;
  verification: {
    /** null: the proof does not say. */
    ok: boolean | null;
    reason: string | null;
    expectedMedianMs: number | null;
    toleranceMs: number | null;
    measuredMedianMs: number | null;
    measuredP95Ms: number | null;
    sent: number | null;
    received: number | null;
  } | null;
  /** The directions the forwarder reported, egress first. */
  forwarder: ForwarderCounters[];
  /** The directions netem shaped (the netem backend), egress first. */
  netem: NetemCounters[];
  /**
   * The relay's median hop per direction, and their sum: a round trip crosses it once each
   * way, so about what it adds to a round trip's median (docs/network-emulation.md, "The
   * relay's cost"). null without a relay or its figures.
   */
  relay: { upP50Us: number | null; downP50Us: number | null; addedMedianUs: number | null } | null;
};

/** A device's proof of enforcement, or null when it sent none (or not an object). */
export const parseNetworkProof = (raw: unknown): NetworkProof | null => {
  const parsed = proofSchema.safeParse(raw);
  if (!parsed.success) return null;
  const { backend, verification: v, forwarder, netem, relay } = parsed.data;
  const up = relay?.up?.hop_p50_us ?? null;
  const down = relay?.down?.hop_p50_us ?? null;
  return {
    backend: backend ?? null,
    verification: v
      ? {
          ok: v.ok ?? null,
          reason: v.reason ?? null,
          expectedMedianMs: v.expected_median_ms ?? null,
          toleranceMs: v.tolerance_ms ?? null,
          measuredMedianMs: v.measured_median_ms ?? null,
          measuredP95Ms: v.measured_p95_ms ?? null,
          sent: v.sent ?? null,
          received: v.received ?? null,
        }
      : null,
    forwarder: FORWARDER_DIRECTIONS.flatMap((direction) => {
      const counters = forwarder?.[direction];
      return counters
        ? [
            {
              direction,
              forwarded: counters.forwarded ?? null,
              droppedLoss: counters.dropped_loss ?? null,
              droppedQueue: counters.dropped_queue ?? null,
            },
          ]
        : [];
    }),
    netem: FORWARDER_DIRECTIONS.flatMap((direction) => {
      const counters = netem?.counters?.[direction];
      return counters
        ? [{ direction, packets: counters.packets ?? null, bytes: counters.bytes ?? null, drops: counters.drops ?? null }]
        : [];
    }),
    relay:
      up === null && down === null
        ? null
        : { upP50Us: up, downP50Us: down, addedMedianUs: up !== null && down !== null ? up + down : null },
  };
};
