import type { CategoryChartData } from '@/components/charts';
import type { SizeBreakdown, SizeComponent } from '@/types/api';

/**
 * From the server's message-size breakdowns (GET /sizes/) to a stacked bar chart and a table.
 * The server lists every component of every run in the same order, bottom of the stack first,
 * with 0 where a run has none: components no run has are left out of the chart.
 */

/** One bar: its category label (a run, or an interleaved run's mechanism) and its breakdown. */
export type SizeBar = { label: string; sizes: SizeBreakdown };

const bytesByKey = (sizes: SizeBreakdown): ReadonlyMap<string, number> =>
  new Map(sizes.components.map((component) => [component.key, component.bytes]));

/** One stacked series per component that any bar has bytes of, in the server's stack order. */
export const sizeChartData = (bars: readonly SizeBar[]): CategoryChartData => {
  const order: { key: string; name: string }[] = [];
  const seen = new Set<string>();
  for (const { sizes } of bars) {
    for (const { key, name } of sizes.components) {
      if (!seen.has(key)) {
        seen.add(key);
        order.push({ key, name });
      }
    }
  }
  const byBar = bars.map(({ sizes }) => bytesByKey(sizes));
  return {
    categories: bars.map((bar) => bar.label),
    series: order
      .filter(({ key }) => byBar.some((bytes) => (bytes.get(key) ?? 0) > 0))
      // One colour per part across runs and pages (components/charts/colours).
      .map(({ key, name }) => ({ name, colourKey: key, values: byBar.map((bytes) => bytes.get(key) ?? 0) })),
  };
};

const BASIS_LABELS: Record<SizeComponent['basis'], string> = {
  measured: 'measured',
  spec: 'from the run’s parameters',
  assumed: 'assumed (below the socket)',
};

export type SizeTableRow = { key: string; name: string; bytes: number; basis: string };

/** The components with bytes, top of the stack first (as a reader of the bar goes). */
export const sizeTableRows = (sizes: SizeBreakdown): SizeTableRow[] =>
  sizes.components
    .filter((component) => component.bytes > 0)
    .map((component) => ({
      key: component.key,
      name: component.name,
      bytes: component.bytes,
      basis: BASIS_LABELS[component.basis],
    }))
    .reverse();

/** Each run's own stack: "MQTT 3.1.1, QoS 1, AES-128-CBC, TCP", "SRUP (ed25519) over MQTT 5,
 * QoS 1, …, TLS 1.3", "CoAP, AES-128-GCM, UDP", "MQTT-SN, QoS 1, no payload security, UDP". */
export const describeSizes = (sizes: SizeBreakdown, labelFor: (mechanism: string) => string): string => {
  const security = sizes.security === 'none' ? 'no payload security' : labelFor(sizes.security);
  if (sizes.protocol === 'coap') return `CoAP, ${security}, UDP`;
  if (sizes.protocol === 'mqttsn') return `MQTT-SN, QoS ${sizes.qos}, ${security}, UDP`;
  const mqtt = `MQTT ${sizes.mqtt_version}`;
  const protocol = sizes.protocol === 'srup' ? `SRUP (${sizes.srup_signature ?? '?'}) over ${mqtt}` : mqtt;
  const transport = sizes.transport.startsWith('tls') ? `TLS ${sizes.transport.slice('tls'.length)}` : 'TCP';
  return `${protocol}, QoS ${sizes.qos}, ${security}, ${transport}`;
};

/** What carries a run's messages: UDP for CoAP and MQTT-SN, TCP (or TLS over it) else. */
export const carrierOf = (sizes: Pick<SizeBreakdown, 'protocol'>): 'UDP' | 'TCP' =>
  sizes.protocol === 'coap' || sizes.protocol === 'mqttsn' ? 'UDP' : 'TCP';

/** What was measured: "193 bytes (median of 3 delivered messages, 190–200)". */
export const describeWireBytes = (sizes: SizeBreakdown): string => {
  const n = sizes.messages;
  const range =
    sizes.wire_bytes_min === sizes.wire_bytes_max ? '' : `, ${sizes.wire_bytes_min}–${sizes.wire_bytes_max}`;
  return `${sizes.wire_bytes_median} bytes (median of ${n} delivered message${n === 1 ? '' : 's'}${range})`;
};
