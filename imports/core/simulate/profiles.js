'use strict';
/**
 * Simulator profiles: named option sets, merged as DEFAULTS < profile < caller's options.
 *
 *   default  The Bay Area demo mesh: 176 nodes (40 repeaters, 120 companions, 6 rooms,
 *            10 sensors), 8 observers in 2 regions, 60 km square, 12 towns. Small enough for
 *            tests and the live demo; its message stream is pinned by a digest test.
 *   large    A public mesh at scale, laid over Puget Sound (Everett to Olympia): 5,200 nodes
 *            (780 repeaters = 15%, 120 rooms, 200 sensors, 4,100 companions), 64 observers in
 *            5 regions, 160 km square, 36 towns. Repeater names come from their nearest town.
 *            Calibrated to the real capture in the shared fixtures (one public mesh, one day;
 *            benchmarks/README.md, "How long are real paths?") on the two report properties it
 *            shows that drive the engine's cost:
 *            - hop hashes 1/2/3 bytes at 93/6/1% (the capture's reports: 92.9/6.5/0.5%); with
 *              780 repeaters every 1-byte prefix is shared by ~3 repeaters and a few 2-byte
 *              prefixes collide, as on real meshes;
 *            - flood paths of 0-12 hops (16 km between hill sites), each relayed copy reaching
 *              an observer with chance 0.5 per hop (hopSurvival): ~2.6 hops per report, ~2.2
 *              over each transmission's first heard (the capture: 2.32, 95% interval
 *              1.90-2.74), about 3 observers per transmission (1-32).
 *            Until 2026-11-24 it had hashes at 60/30/10% and no loss per hop (paths of 5.0 and
 *            3.25 hops, 7 observers per transmission): benchmarks/mesh-factors.js keeps that
 *            mesh as its `large-uncalibrated` variant.
 */
const { PUBLIC_CHANNEL } = require('../decode');

/** Every option, with its default (the `default` profile). */
const DEFAULTS = Object.freeze({
  // Seed (number or string) for the world, the keys and the traffic.
  seed: 1,
  // Node counts per role. Repeaters are the only relays.
  repeaters: 40,
  companions: 120,
  rooms: 6,
  sensors: 10,
  // Observers (MQTT uploaders), spread round-robin over the regions; each sits at a node.
  observers: 8,
  // Region codes (MQTT topic segment), assigned as latitude bands from north to south.
  regions: ['SFO', 'SJC'],
  // Map: a square of areaKm around center (defaults: San Francisco to San Jose).
  center: { lat: 37.55, lon: -122.15 },
  areaKm: 60,
  // Radio range between two repeaters/rooms (hill sites), and for any other pair.
  repeaterRangeKm: 16,
  nodeRangeKm: 7,
  // Towns companions cluster around (lat, lon); spread is the cluster's standard deviation.
  towns: [
    { name: 'San Francisco', lat: 37.77, lon: -122.42 }, { name: 'Oakland', lat: 37.80, lon: -122.27 },
    { name: 'Daly City', lat: 37.69, lon: -122.47 }, { name: 'San Mateo', lat: 37.56, lon: -122.32 },
    { name: 'Hayward', lat: 37.67, lon: -122.08 }, { name: 'Redwood City', lat: 37.49, lon: -122.23 },
    { name: 'Fremont', lat: 37.55, lon: -121.99 }, { name: 'Palo Alto', lat: 37.44, lon: -122.14 },
    { name: 'Mountain View', lat: 37.39, lon: -122.08 }, { name: 'Milpitas', lat: 37.43, lon: -121.90 },
    { name: 'Santa Clara', lat: 37.35, lon: -121.95 }, { name: 'San Jose', lat: 37.34, lon: -121.89 },
  ],
  townSpreadKm: 3,
  // Repeater names: a list of hill sites drawn without replacement ('Site N' once it runs
  // out; null = the built-in Bay Area list), or 'nearest-town' to name each after its town.
  repeaterSites: null,
  // Group channels: `{ name, key }` (16-byte hex) or a '#hashtag' name; weights pick among them.
  channels: [PUBLIC_CHANNEL, '#test', '#wardriving'],
  channelWeights: [6, 3, 1],
  // Simulated clock start (ms) and mean gap between transmissions (exponential gaps).
  startTime: Date.UTC(2025, 5, 1, 12, 0, 0),
  meanGapMs: 1000,
  // Mix of transmissions that start something; replies come on top (see followUpRate), so the
  // measured share of transmissions is: GRP_TXT 32%, TXT_MSG 15%, PATH 11%, ACK 11%, REQ 9%,
  // RESPONSE 8%, ADVERT 5%, CONTROL 5%, ANON_REQ 3%, TRACE 2%.
  payloadMix: { GRP_TXT: 34, TXT_MSG: 17, REQ: 11, RESPONSE: 3, ACK: 4, PATH: 0.5, ADVERT: 6, TRACE: 2, ANON_REQ: 3, CONTROL: 2 },
  // Chance that a TXT_MSG/REQ/ANON_REQ gets its reply (ACK, RESPONSE or PATH).
  followUpRate: 0.85,
  // Hop hash size (bytes) each node uses for the packets it originates.
  hashSizeMix: { 1: 80, 2: 15, 3: 5 },
  // Share of floods sent as TRANSPORT_FLOOD (and direct packets as TRANSPORT_DIRECT).
  transportShare: 0.1,
  // Share of addressed packets (TXT_MSG, REQ, RESPONSE, ACK) sent direct rather than flooded.
  directShare: 0.6,
  // How many observers hear one transmission, capped by how many are in range.
  observersPerTransmission: { 1: 30, 2: 30, 3: 25, 4: 15 },
  // Flood hop limit (the path-length byte allows 63).
  maxFloodHops: 10,
  // Chance that a relayed copy survives one more hop to an observer (collisions, duty cycle,
  // weak links): an observer that heard the packet through h relays reports it with chance
  // hopSurvival^h. 1 (the default profile): every observer in range may report it, however far.
  // A study of path lengths (benchmarks/mesh-factors.js) varies it; below 1 it draws one more
  // random number per hearing, so the stream differs from 1's.
  hopSurvival: 1,
  // Per-hop delay before a relayed copy is heard (airtime plus retransmit backoff).
  hopDelayMs: { min: 250, max: 900 },
  // Attach `truth: { hops: [pubKey, ...] }` to each message: the node behind each path hop.
  withTruth: false,
  // Start with one flooded advert per node (repeaters and rooms first; every other
  // transmission until done), as a running mesh already knows its nodes: true = every node,
  // a number = that many. Off: the plain stream.
  startupAdverts: false,
});

const PUGET_SOUND_TOWNS = [
  ['Everett', 47.979, -122.202], ['Marysville', 48.052, -122.177], ['Mukilteo', 47.945, -122.304],
  ['Snohomish', 47.913, -122.098], ['Monroe', 47.855, -121.971], ['Lynnwood', 47.821, -122.315],
  ['Edmonds', 47.811, -122.377], ['Bothell', 47.762, -122.205], ['Kirkland', 47.681, -122.209],
  ['Redmond', 47.674, -122.121], ['Ballard', 47.668, -122.384], ['Seattle', 47.606, -122.332],
  ['Bellevue', 47.610, -122.201], ['Issaquah', 47.530, -122.032], ['North Bend', 47.496, -121.787],
  ['Burien', 47.470, -122.347], ['Renton', 47.483, -122.217], ['Maple Valley', 47.392, -122.046],
  ['Kent', 47.381, -122.235], ['Auburn', 47.307, -122.228], ['Federal Way', 47.322, -122.313],
  ['Vashon', 47.447, -122.460], ['Enumclaw', 47.204, -121.991], ['Tacoma', 47.253, -122.444],
  ['Puyallup', 47.185, -122.293], ['Lakewood', 47.172, -122.518], ['Gig Harbor', 47.329, -122.580],
  ['Port Orchard', 47.540, -122.636], ['Bremerton', 47.567, -122.633], ['Silverdale', 47.645, -122.695],
  ['Poulsbo', 47.736, -122.646], ['Shelton', 47.215, -123.100], ['Olympia', 47.038, -122.900],
  ['Lacey', 47.034, -122.823], ['Tumwater', 47.007, -122.909], ['Yelm', 46.942, -122.606],
].map(([name, lat, lon]) => Object.freeze({ name, lat, lon }));

/** Named profiles: each is a partial option set over DEFAULTS (see the header comment). */
const PROFILES = Object.freeze({
  default: Object.freeze({}),
  large: Object.freeze({
    repeaters: 780,
    companions: 4100,
    rooms: 120,
    sensors: 200,
    observers: 64,
    regions: ['PAE', 'SEA', 'BFI', 'TIW', 'OLM'],
    center: { lat: 47.45, lon: -122.35 },
    areaKm: 160,
    repeaterRangeKm: 16,
    nodeRangeKm: 6,
    towns: PUGET_SOUND_TOWNS,
    townSpreadKm: 4,
    repeaterSites: 'nearest-town',
    channels: [PUBLIC_CHANNEL, '#test', '#wardriving', '#seattle', '#emcomm'],
    channelWeights: [6, 2, 1, 2, 1],
    meanGapMs: 250,
    hashSizeMix: { 1: 93, 2: 6, 3: 1 },
    observersPerTransmission: { 1: 10, 2: 15, 4: 20, 8: 25, 16: 20, 32: 10 },
    maxFloodHops: 12,
    hopSurvival: 0.5,
  }),
});

/**
 * The large profile's report options before its calibration to the real capture (2026-11-24):
 * no loss per hop, hop hashes at 60/30/10%. Not a profile: the mesh-factors study and the
 * brute-force tests keep measuring that mesh as the harsher case (longer paths, more keys).
 */
const LARGE_UNCALIBRATED = Object.freeze({ hopSurvival: 1, hashSizeMix: Object.freeze({ 1: 60, 2: 30, 3: 10 }) });

/** Profile names, for option lists and CLI help. */
const PROFILE_NAMES = Object.freeze(Object.keys(PROFILES));

function resolveOptions(input) {
  const profileName = input.profile === undefined ? 'default' : input.profile;
  const profile = PROFILES[profileName];
  if (!profile) throw new Error(`simulate: unknown profile ${JSON.stringify(profileName)} (known: ${PROFILE_NAMES.join(', ')})`);
  const options = { ...DEFAULTS, ...profile, ...input, profile: profileName };
  for (const key of ['repeaters', 'companions', 'rooms', 'sensors', 'observers']) {
    if (!Number.isInteger(options[key]) || options[key] < 0) throw new Error(`simulate: ${key} must be a non-negative integer`);
  }
  if (options.repeaters < 1) throw new Error('simulate: needs at least 1 repeater');
  if (options.companions < 2) throw new Error('simulate: needs at least 2 companions');
  if (options.observers < 1) throw new Error('simulate: needs at least 1 observer');
  if (!Array.isArray(options.regions) || options.regions.length < 1) throw new Error('simulate: regions must be a non-empty array');
  if (!(options.maxFloodHops >= 1 && options.maxFloodHops <= 63)) throw new Error('simulate: maxFloodHops must be 1..63 (6-bit hop count)');
  if (!(typeof options.hopSurvival === 'number' && options.hopSurvival > 0 && options.hopSurvival <= 1)) throw new Error('simulate: hopSurvival must be a number in (0, 1]');
  if (options.channels.length !== options.channelWeights.length) throw new Error('simulate: channelWeights must have one weight per channel');
  const adverts = options.startupAdverts;
  if (!(typeof adverts === 'boolean' || (Number.isInteger(adverts) && adverts >= 0))) throw new Error('simulate: startupAdverts must be true, false or a node count');
  return options;
}

module.exports = { DEFAULTS, PROFILES, PROFILE_NAMES, LARGE_UNCALIBRATED, resolveOptions };
