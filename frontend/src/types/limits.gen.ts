/**
 * GENERATED FILE - DO NOT EDIT BY HAND.
 * Source: contract/src/iotsecbench_contract/limits.py (what the platform and the agents check).
 * Regenerate from the repository root: make schema
 */

// The largest UDP payload over IPv4 (65535 - 8 UDP - 20 IP header bytes): the largest
// throughput frame and the largest MQTT-SN datagram.
export const MAX_UDP_PAYLOAD = 65_507;
// The largest Data of an MQTT-SN PUBLISH that one UDP datagram carries: the datagram minus
// the 9-octet header of a PUBLISH with the 3-octet Length (MQTT-SN 1.2 §5.2.1, §5.4.12).
export const MAX_PUBLISH_DATA = 65_498;
// A one-way message's payload carries its sequence number (8 bytes) and the controller's
// send time (8 bytes), so it is at least that long.
export const ONE_WAY_MIN_PAYLOAD = 16;
// A cipher benchmark's or throughput job's lists of mechanisms and data sizes.
export const MAX_MECHANISMS = 64;
export const MAX_DATA_SIZES = 16;
// A cipher benchmark's data size: 1 GiB, the OpenSSL-on-Pi paper's largest file size that
// a Pi's SD card and a run's duration still take (the agent streams data above 1 MiB).
export const MAX_BENCH_DATA_BYTES = 1_073_741_824;
// A cipher benchmark's repetitions per mechanism and size: 10,000 repetitions of the
// slowest mechanism (RSA-4096 signing, ~0.5 s on a Pi) already take well over an hour.
export const MAX_BENCH_REPETITIONS = 10_000;
// A throughput run's repetitions: 1000 repetitions of 2 × 2 s windows are already over an
// hour per mechanism and size.
export const MAX_THROUGHPUT_REPETITIONS = 1000;
// A throughput window. Below ~10 ms a window is a few scheduler ticks (4 ms at a Pi's
// HZ=250); above 10 s a SIGTERM would wait too long (the stop flag is checked between
// windows, and systemd's TimeoutStopSec, 30 s, must cover a window and the report).
export const MIN_WINDOW_MS = 10;
export const MAX_WINDOW_MS = 10_000;
