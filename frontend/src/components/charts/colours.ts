/**
 * One colour per size part and per security mechanism across the whole app (issue #21): a
 * run's "Payload" is the same green on the run page, on the compare page and in a download,
 * whatever else the chart shows and in whatever order. Charts ask here by the part's or the
 * mechanism's stable key (the API's `key` / mechanism `name`), never by position.
 */

// Plotly's "Dark24": distinct colours for the keys this map does not name.
export const PALETTE = [
  '#2E91E5', '#E15F99', '#1CA71C', '#FB0D0D', '#DA16FF', '#222A2A', '#B68100', '#750D86',
  '#EB663B', '#511CFB', '#00A08B', '#FB00D1', '#FC0080', '#B2828D', '#6C7C32', '#778AAE',
  '#862A16', '#A777F1', '#620042', '#1616A7', '#DA60CA', '#6C4516', '#0D2A63', '#AF0038',
] as const;

/**
 * The parts of a message (backend/results/services/size_model.py COMPONENTS): network
 * headers in greys and blues, protocol headers in warm tones, the payload green and the
 * security overhead (IV, padding, tag, signature) in reds and purples, so a stack reads
 * "what was sent" against "what securing it cost".
 */
export const SIZE_PART_COLOURS: Readonly<Record<string, string>> = {
  link: '#9AA5B1',
  ip: '#7B8794',
  udp: '#52606D',
  tcp: '#3E4C59',
  tls: '#AF0038',
  mqtt_header: '#F0B429',
  topic: '#DE911D',
  mqttsn_header: '#CB6E17',
  topic_id: '#B44D12',
  coap_header: '#2E91E5',
  coap_token: '#0D2A63',
  coap_options: '#511CFB',
  payload_marker: '#778AAE',
  srup_header: '#00A08B',
  token: '#6C7C32',
  index: '#FC0080', // an interleaved run's mechanism index (one clear byte)
  iv: '#DA16FF',
  payload: '#1CA71C',
  padding: '#E15F99',
  tag: '#FB0D0D',
  signature: '#750D86',
  unexplained: '#222A2A',
};

/** Mechanisms the papers compare most; others get a stable colour from their name. */
export const MECHANISM_COLOURS: Readonly<Record<string, string>> = {
  none: '#7B8794',
  null: '#3E4C59',
  'aes-128-cbc': '#2E91E5',
  'aes-192-cbc': '#1616A7',
  'aes-256-cbc': '#511CFB',
  'aes-128-gcm': '#00A08B',
  'aes-256-gcm': '#1CA71C',
  'des-cbc': '#EB663B',
  '3des-cbc': '#B68100',
  'tea-cbc': '#DA16FF',
  tea: '#DA16FF',
  rc4: '#862A16',
  'chacha20-poly1305': '#E15F99',
  'hmac-sha256': '#6C7C32',
  'ecdsa-p256': '#750D86',
  ed25519: '#A777F1',
  'ascon-aead128': '#FB0D0D',
};

/** A stable index for a key that no map names (FNV-1a), so it keeps its colour between charts. */
const hashIndex = (key: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % PALETTE.length;
};

/** The colour of a size part or mechanism key; the same key always gets the same colour. */
export const colourOf = (key: string): string =>
  SIZE_PART_COLOURS[key] ?? MECHANISM_COLOURS[key] ?? PALETTE[hashIndex(key)] ?? PALETTE[0];
