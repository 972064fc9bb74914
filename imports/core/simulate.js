'use strict';
/**
 * A seeded, deterministic synthetic MeshCore mesh that speaks exactly what observers publish
 * over MQTT (meshcoretomqtt's `packets` topic), for demos, tests and benchmarks.
 *
 * The world: nodes on a ~60 km map (repeaters, rooms, sensors, companions clustered around
 * towns), each with a real ed25519 key pair derived from the seed, and a neighbour graph from
 * radio range. Traffic: every transmission is built byte for byte in the MeshCore wire format
 * (see decode.js): adverts are signed, group texts are AES-encrypted with real channel keys,
 * the other encrypted types carry random ciphertext (nobody can read those without node keys).
 *
 * Propagation: a flood spreads breadth-first over repeaters (randomised neighbour order, so
 * the tree varies); each repeater appends its hop hash. An observer hears the copy sent by
 * its nearest-in-hops neighbour, so different observers report the same payload (one content
 * hash) with different paths, each a real walk over the graph. Direct packets follow a fixed
 * shortest route; each repeater strips itself, so an observer hears the remaining route.
 * TRACE is direct and collects one SNR byte per hop; since the firmware hashes TRACE with its
 * path-length byte, observers at different hops report different hashes (as in real meshes).
 *
 * Determinism: everything comes from the seed (world, keys and traffic use separate forked
 * streams) and a simulated clock that each transmission advances by a seeded gap, so the
 * same options give the same messages byte for byte. The message stream is in the order
 * observers heard things: overlapping transmissions interleave, timestamps never go back.
 *
 * Speed (measured once, Node 20, default options, 1,000,000 `nextMessage()` calls): 1e6
 * messages in 7.0-8.3 s of CPU, i.e. 120,000-140,000 messages/s; advert signing (ed25519,
 * adverts are 5% of transmissions) is about 14% of that time, the flood model about 35%.
 */
const crypto = require('crypto');
const { createPrng, weightedPicker } = require('./prng');
const { PUBLIC_CHANNEL, channelKeyFromName, PAYLOAD_TYPES } = require('./decode');

/** Every option, with its default. */
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
  // Per-hop delay before a relayed copy is heard (airtime plus retransmit backoff).
  hopDelayMs: { min: 250, max: 900 },
});

const ROLE_IDS = { companion: 1, repeater: 2, room: 3, sensor: 4 };
const ROUTE = { TRANSPORT_FLOOD: 0, FLOOD: 1, DIRECT: 2, TRANSPORT_DIRECT: 3 };
const MAX_PACKET_BYTES = 255;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
// MeshCore's default RTC epoch: a node whose clock was never set adverts times near it.
const UNSET_RTC_EPOCH = 1715770351;
// LoRa SNR floor for SF11, the US default; used by the packet score like the firmware does.
const SNR_THRESHOLD_DB = -17.5;

const REPEATER_SITES = [
  'Twin Peaks', 'Mt Sutro', 'San Bruno Mtn', 'Montara Mtn', 'Sweeney Ridge', 'Kings Mtn', 'Skyline',
  'Crystal Springs', 'Belmont Hills', 'Black Mtn', 'Mission Peak', 'Monument Peak', 'Coyote Hills',
  'Mt Hamilton', 'Communications Hill', 'Santa Teresa', 'Alum Rock', 'Los Gatos Hills', 'Page Mill',
  'Bernal Hill', 'Grizzly Peak', 'Sunol Ridge', 'Pacifica', 'Berryessa', 'Almaden', 'Evergreen',
  'Moffett', 'Sunset Reservoir', 'King Tide', 'Quail Peak', 'Mt Diablo View', 'Half Moon Bay',
  'Vollmer Peak', 'Round Top', 'Mt Umunhum', 'El Sereno', 'Windy Hill', 'Russian Ridge', 'Borel Hill',
  'Coyote Peak', 'Tank Hill', 'Corona Heights', 'Mt Davidson', 'Lands End', 'Hunters Point', 'Brisbane',
  'Burlingame Hills', 'Woodside', 'Portola Valley', 'Los Altos Hills', 'Rancho San Antonio', 'Calaveras',
];
const REPEATER_STYLES = ['{site} Repeater', '{site} RPT', '{site} 📡', '{site}-R', '{call} {site}', '{site} 🌲'];
const FIRST_NAMES = [
  'Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Mallory', 'Niaj',
  'Olivia', 'Peggy', 'Rupert', 'Sybil', 'Trent', 'Victor', 'Walter', 'Xena', 'Yuri', 'Zoe', 'Volna',
  'Blorko', 'Derek', 'Mika', 'Priya', 'Tomas', 'Lena', 'Kai', 'Rosa', 'Omar', 'Hana', 'Felix', 'Ines',
];
const NAME_EMOJI = ['🦑', '🤠', '🚲', '📻', '🌊', '🦦', '😺', '🌑', '🪶', '🐝'];
const DEVICES = ['T-Deck', 'Heltec', 'RAK', 'T1000', 'Xiao', 'Mobile'];
const ROOM_NAMES = ['Bay Mesh Room', 'SJ Chat', 'Peninsula BBS', 'Hackers Room', 'Weather Room', 'Emergency Net', 'East Bay BBS', 'Ham Shack'];
const CHANNEL_TEXTS = {
  Public: [
    'Hello from {town}!', 'Good morning mesh ☀️', 'Anyone copy from {town}?', 'Test', 'Hi all, new node here in {town}',
    '@[{other}] 🤙', '@[{other}] heard you {n} hops out', '{site} repeater is back up', 'Quiet on the mesh tonight',
    'What antenna are you all using?', 'Heading up {site} this weekend with a spare repeater',
    'Thanks for the relay!', 'Power out in {town}, running on battery 🔋', 'SNR {snr} from {town}, not bad',
  ],
  '#test': ['test', 'Test {n}', 'PathBot', 'ping', '!ai is MeshCore a mesh? One word only.', 'check check from {town}', 'test from {town} {n}', '!weather {town}'],
  '#wardriving': ['@[MapperBot] {lat}, {lon} [0.3w]', '@[MapperBot] {lat}, {lon}', 'WD {lat}, {lon} SNR {snr}'],
};
const MAX_TEXT_BYTES = 150; // keeps every GRP_TXT well under the 255-byte packet limit

function resolveOptions(input) {
  const options = { ...DEFAULTS, ...input };
  for (const key of ['repeaters', 'companions', 'rooms', 'sensors', 'observers']) {
    if (!Number.isInteger(options[key]) || options[key] < 0) throw new Error(`simulate: ${key} must be a non-negative integer`);
  }
  if (options.repeaters < 1) throw new Error('simulate: needs at least 1 repeater');
  if (options.companions < 2) throw new Error('simulate: needs at least 2 companions');
  if (options.observers < 1) throw new Error('simulate: needs at least 1 observer');
  if (!Array.isArray(options.regions) || options.regions.length < 1) throw new Error('simulate: regions must be a non-empty array');
  if (!(options.maxFloodHops >= 1 && options.maxFloodHops <= 63)) throw new Error('simulate: maxFloodHops must be 1..63 (6-bit hop count)');
  if (options.channels.length !== options.channelWeights.length) throw new Error('simulate: channelWeights must have one weight per channel');
  return options;
}

/** Fixed-length ed25519 key pair from 32 seed bytes. */
function keyPairFromSeed(seed32) {
  const privateKey = crypto.createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed32]), format: 'der', type: 'pkcs8' });
  const publicKey = crypto.createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
  return { privateKey, publicKey: Buffer.from(publicKey) };
}

function uniqueName(name, taken) {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name} ${n}`;
  taken.add(candidate);
  return candidate;
}

function callsign(prng) {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const prefix = prng.pick(['K', 'W', 'N', 'KJ', 'KN', 'KO', 'AI']);
  return `${prefix}${prng.int(10)}${letters[prng.int(26)]}${letters[prng.int(26)]}${letters[prng.int(26)]}`;
}

/** Builds the static world: nodes with keys and positions, the neighbour graph, observers. */
function buildWorld(options) {
  const root = createPrng(options.seed);
  const layout = root.fork('world');
  const keys = root.fork('keys');
  const half = options.areaKm / 2;
  const kmPerDegLat = 111.32;
  const kmPerDegLon = 111.32 * Math.cos((options.center.lat * Math.PI) / 180);
  const clampKm = (v) => Math.max(-half, Math.min(half, v));
  const toLat = (y) => Math.round((options.center.lat + y / kmPerDegLat) * 1e6) / 1e6;
  const toLon = (x) => Math.round((options.center.lon + x / kmPerDegLon) * 1e6) / 1e6;
  const towns = options.towns.map((t) => ({
    name: t.name,
    x: clampKm((t.lon - options.center.lon) * kmPerDegLon),
    y: clampKm((t.lat - options.center.lat) * kmPerDegLat),
  }));
  const pickHashSize = weightedPicker(options.hashSizeMix);
  const taken = new Set();
  const nodes = [];
  const secrets = [];

  const uniformPoint = () => ({ x: (layout.float() * 2 - 1) * half, y: (layout.float() * 2 - 1) * half });
  const nearTown = () => {
    const town = towns.length ? layout.pick(towns) : { x: 0, y: 0 };
    return { x: clampKm(town.x + layout.gaussian() * options.townSpreadKm), y: clampKm(town.y + layout.gaussian() * options.townSpreadKm) };
  };

  const addNode = (role, name, point, hasLocation) => {
    const index = nodes.length;
    const { privateKey, publicKey } = keyPairFromSeed(keys.bytes(32));
    const lat = toLat(point.y);
    const lon = toLon(point.x);
    const bandHeight = options.areaKm / options.regions.length;
    const band = Math.min(options.regions.length - 1, Math.floor((half - point.y) / bandHeight));
    // Most clocks are synced by phone or GPS; some drift, some were never set.
    const clockRoll = layout.float();
    let clockSkewSec = Math.round(layout.gaussian() * 5);
    if (clockRoll > 0.95) clockSkewSec = UNSET_RTC_EPOCH - Math.floor(options.startTime / 1000) + layout.int(86400 * 30);
    else if (clockRoll > 0.85) clockSkewSec = Math.round(layout.gaussian() * 3600);
    const node = {
      index,
      role,
      roleId: ROLE_IDS[role],
      name: uniqueName(name, taken),
      pubKey: publicKey.toString('hex'),
      lat,
      lon,
      hasLocation,
      hashSize: Number(pickHashSize(layout)),
      region: options.regions[Math.max(0, band)],
      clockSkewSec,
    };
    node.x = point.x;
    node.y = point.y;
    nodes.push(node);

    // appData never changes for a node, so the signed message is prepared once; only the
    // timestamp is rewritten before each signature.
    const appData = Buffer.alloc(1 + (hasLocation ? 8 : 0) + Buffer.byteLength(node.name, 'utf8'));
    appData[0] = node.roleId | (hasLocation ? 0x10 : 0) | 0x80;
    let at = 1;
    if (hasLocation) {
      appData.writeInt32LE(Math.round(lat * 1e6), 1);
      appData.writeInt32LE(Math.round(lon * 1e6), 5);
      at = 9;
    }
    appData.write(node.name, at, 'utf8');
    const signed = Buffer.concat([publicKey, Buffer.alloc(4), appData]);
    secrets.push({
      privateKey,
      publicKey,
      appData,
      signed,
      prefixHex: [null, 1, 2, 3].map((size) => (size ? publicKey.toString('hex', 0, size).toUpperCase() : '')),
    });
    return node;
  };

  const sites = [...REPEATER_SITES];
  for (let i = 0; i < options.repeaters; i++) {
    const site = sites.length ? sites.splice(layout.int(sites.length), 1)[0] : `Site ${i + 1}`;
    const name = layout.pick(REPEATER_STYLES).replace('{site}', site).replace('{call}', callsign(layout));
    addNode('repeater', name, uniformPoint(), layout.chance(0.95));
  }
  for (let i = 0; i < options.rooms; i++) addNode('room', ROOM_NAMES[i % ROOM_NAMES.length], nearTown(), layout.chance(0.9));
  for (let i = 0; i < options.sensors; i++) {
    const town = towns.length ? layout.pick(towns).name : 'Field';
    addNode('sensor', `WX ${town}`, uniformPoint(), true);
  }
  for (let i = 0; i < options.companions; i++) {
    const first = layout.pick(FIRST_NAMES);
    const style = layout.float();
    let name = first;
    if (style > 0.85) name = `${first}-${layout.pick(DEVICES)}`;
    else if (style > 0.65) name = callsign(layout);
    else if (style > 0.4) name = `${first} ${layout.pick(NAME_EMOJI)}`;
    addNode('companion', name, layout.chance(0.75) ? nearTown() : uniformPoint(), layout.chance(0.6));
  }

  const graph = buildGraph(nodes, options);
  const observers = placeObservers(nodes, options, layout);
  return { nodes, secrets, graph, observers, towns, layout };
}

function distanceKm(a, b) {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  return Math.sqrt(dx * dx + dy * dy);
}

/**
 * Neighbour graph from radio range. Two fixes keep every packet deliverable: each
 * non-repeater gets its nearest repeater as a neighbour, and separate repeater clusters are
 * joined by their closest pair (a long link, as a well-placed hill site gives in reality).
 */
function buildGraph(nodes, options) {
  const count = nodes.length;
  const adjacency = new Uint8Array(count * count);
  const neighbours = nodes.map(() => []);
  const link = (a, b) => {
    if (a === b || adjacency[a * count + b]) return;
    adjacency[a * count + b] = 1;
    adjacency[b * count + a] = 1;
    neighbours[a].push(b);
    neighbours[b].push(a);
  };
  const highSite = (node) => node.role === 'repeater' || node.role === 'room';
  for (let a = 0; a < count; a++) {
    for (let b = a + 1; b < count; b++) {
      const range = highSite(nodes[a]) && highSite(nodes[b]) ? options.repeaterRangeKm : options.nodeRangeKm;
      if (distanceKm(nodes[a], nodes[b]) <= range) link(a, b);
    }
  }
  const repeaters = nodes.filter((n) => n.role === 'repeater').map((n) => n.index);
  for (const node of nodes) {
    if (node.role === 'repeater' || neighbours[node.index].some((i) => nodes[i].role === 'repeater')) continue;
    let nearest = repeaters[0];
    for (const r of repeaters) if (distanceKm(node, nodes[r]) < distanceKm(node, nodes[nearest])) nearest = r;
    link(node.index, nearest);
  }
  // Join repeater components until one remains.
  for (;;) {
    const component = new Map();
    for (const start of repeaters) {
      if (component.has(start)) continue;
      const stack = [start];
      component.set(start, start);
      while (stack.length) {
        const u = stack.pop();
        for (const v of neighbours[u]) {
          if (nodes[v].role === 'repeater' && !component.has(v)) {
            component.set(v, start);
            stack.push(v);
          }
        }
      }
    }
    const first = component.get(repeaters[0]);
    let best = null;
    for (const a of repeaters) {
      if (component.get(a) !== first) continue;
      for (const b of repeaters) {
        if (component.get(b) === first) continue;
        const d = distanceKm(nodes[a], nodes[b]);
        if (!best || d < best.d) best = { a, b, d };
      }
    }
    if (!best) break;
    link(best.a, best.b);
  }
  for (const list of neighbours) list.sort((a, b) => a - b);
  return {
    neighbours,
    areNeighbours: (a, b) => adjacency[a * count + b] === 1,
    distanceKm: (a, b) => distanceKm(nodes[a], nodes[b]),
  };
}

/** Observers sit at nodes: round-robin over regions, three in four at repeaters. */
function placeObservers(nodes, options, prng) {
  const observers = [];
  const used = new Set();
  for (let i = 0; i < options.observers; i++) {
    const region = options.regions[i % options.regions.length];
    const wantRole = i % 4 === 3 ? 'companion' : 'repeater';
    let pool = nodes.filter((n) => n.region === region && n.role === wantRole && !used.has(n.index));
    if (pool.length === 0) pool = nodes.filter((n) => n.region === region && !used.has(n.index));
    if (pool.length === 0) pool = nodes.filter((n) => !used.has(n.index));
    if (pool.length === 0) throw new Error(`simulate: more observers (${options.observers}) than nodes (${nodes.length})`);
    const host = prng.pick(pool);
    used.add(host.index);
    const id = host.pubKey.toUpperCase();
    observers.push({
      index: i,
      id,
      name: host.name,
      region,
      node: host.index,
      lat: host.lat,
      lon: host.lon,
      topic: `meshcore/${region}/${id}/packets`,
    });
  }
  return observers;
}

function describeChannels(channels) {
  return channels.map((entry) => {
    const channel = typeof entry === 'string' ? { name: entry } : entry;
    const key = channel.key ? Buffer.from(channel.key, 'hex') : channelKeyFromName(channel.name);
    if (key.length !== 16) throw new Error(`simulate: channel ${channel.name} key must be 16 bytes`);
    const hash = crypto.createHash('sha256').update(key).digest()[0];
    return { name: channel.name, key: key.toString('hex'), hash: hash.toString(16).padStart(2, '0') };
  });
}

/**
 * Create a simulator. See DEFAULTS for every option. Returns:
 *   nodes, observers, channels  descriptors (node pubKey lowercase hex; observer id uppercase, as
 *                               in the topic; channels fit decode.js createKeyring)
 *   graph                       { neighbours[i], areNeighbours(a, b), distanceKm(a, b) } by node index
 *   nextTransmission()          one heard transmission: { kind, payloadType, routeType, hashSize,
 *                               time, sender, senderPubKey, dest, route, hash, details, messages[],
 *                               observations[] ({ observer, transmitter, pathNodes, walk }, one per
 *                               message), delays[] (ms after `time` each was heard) }
 *   nextMessage(), messages(n)  observer reports in time order (transmissions merged by `delays`)
 *   run({ ratePerSecond, onMessage, count, durationMs, wallClock, onDone }) -> stop()
 *   time                        the simulated clock (ms)
 * Use one simulator either through nextTransmission() or through the message stream: the
 * stream draws its transmissions from the same generator.
 */
function createSimulator(input = {}) {
  const options = resolveOptions(input);
  const world = buildWorld(options);
  const { nodes, secrets, graph, observers } = world;
  const channels = describeChannels(options.channels);
  const traffic = createPrng(options.seed).fork('traffic');
  const count = nodes.length;
  const isRepeater = new Uint8Array(count);
  for (const node of nodes) isRepeater[node.index] = node.role === 'repeater' ? 1 : 0;
  const byRole = { repeater: [], room: [], sensor: [], companion: [] };
  for (const node of nodes) byRole[node.role].push(node.index);
  const servers = [...byRole.repeater, ...byRole.room, ...byRole.sensor];
  const observerHosts = observers.map((o) => o.node);
  // Companions some observer can hear directly: zero-hop CONTROL discovery is only heard there.
  let nearObserver = byRole.companion.filter((c) => observerHosts.some((h) => h !== c && graph.areNeighbours(c, h)));
  if (nearObserver.length === 0) nearObserver = byRole.companion;
  // A few companions do most of the talking, as on real meshes.
  const chatty = byRole.companion.filter(() => world.layout.chance(0.3));
  const contacts = nodes.map((node) => (node.role === 'companion'
    ? Array.from({ length: 5 }, () => (world.layout.chance(0.85) ? world.layout.pick(byRole.companion) : world.layout.pick(servers))).filter((c) => c !== node.index)
    : []));
  const regionKeys = new Map(options.regions.map((r) => [r, channelKeyFromName(`#${r.toLowerCase()}`)]));
  const channelState = channels.map((c) => {
    const key = Buffer.from(c.key, 'hex');
    // ECB has no chaining, so one cipher object serves every message (no padding, whole blocks).
    const cipher = crypto.createCipheriv('aes-128-ecb', key, null);
    cipher.setAutoPadding(false);
    return { ...c, hashByte: parseInt(c.hash, 16), secret: Buffer.concat([key, Buffer.alloc(16)]), cipher };
  });

  const pickKind = weightedPicker(options.payloadMix);
  const pickChannel = weightedPicker(channelState.map((c, i) => [i, options.channelWeights[i]]));
  const pickObserverCount = weightedPicker(options.observersPerTransmission);
  const pickResponseBlocks = weightedPicker({ 1: 40, 2: 25, 3: 15, 4: 10, 6: 10 });

  // Flood state, reused across transmissions: a generation stamp avoids clearing arrays.
  const seen = new Uint32Array(count);
  const depth = new Int32Array(count);
  const parent = new Int32Array(count);
  const queue = new Int32Array(count);
  let generation = 0;
  const routeCache = new Map();

  let clock = options.startTime;
  const followUps = [];
  // Reports heard but not yet emitted, as a binary min-heap on (time, seq): transmissions
  // overlap in time, so the stream interleaves them in the order observers heard them.
  const backlog = [];
  let backlogSeq = 0;

  const nodeClockSec = (index) => Math.floor(clock / 1000) + nodes[index].clockSkewSec;

  function flood(sender) {
    generation++;
    seen[sender] = generation;
    depth[sender] = 0;
    parent[sender] = -1;
    let head = 0;
    let tail = 0;
    queue[tail++] = sender;
    while (head < tail) {
      const u = queue[head++];
      // A repeater that received the packet at depth d relays it (with d hashes) while d <= the limit.
      if ((u !== sender && !isRepeater[u]) || depth[u] > options.maxFloodHops) continue;
      const list = graph.neighbours[u];
      const size = list.length;
      // A random starting point varies which equal-length branch wins, like real timing does.
      const start = size > 1 ? traffic.int(size) : 0;
      for (let k = 0; k < size; k++) {
        const v = list[(start + k) % size];
        if (seen[v] === generation) continue;
        seen[v] = generation;
        depth[v] = depth[u] + 1;
        parent[v] = u;
        queue[tail++] = v;
      }
    }
  }

  /** Fixed shortest route (repeaters only) from one node to another; [] when neighbours. */
  function route(from, to) {
    const key = from * count + to;
    const cached = routeCache.get(key);
    if (cached) return cached;
    generation++;
    seen[from] = generation;
    parent[from] = -1;
    let head = 0;
    let tail = 0;
    queue[tail++] = from;
    let found = from === to;
    while (head < tail && !found) {
      const u = queue[head++];
      if (u !== from && !isRepeater[u]) continue;
      for (const v of graph.neighbours[u]) {
        if (seen[v] === generation) continue;
        seen[v] = generation;
        parent[v] = u;
        if (v === to) { found = true; break; }
        queue[tail++] = v;
      }
    }
    const relays = [];
    if (found) for (let at = parent[to]; at !== from && at !== -1; at = parent[at]) relays.push(at);
    relays.reverse();
    routeCache.set(key, relays);
    return relays;
  }

  function linkSignal(from, toPoint, packetBytes) {
    const d = distanceKm(nodes[from], toPoint) + 0.3;
    const fade = traffic.gaussian();
    const logD = Math.log10(d);
    let snr = 14 - 22 * logD + 2.5 * fade + traffic.gaussian() * 0.5;
    snr = Math.round(Math.max(-20, Math.min(15, snr)) * 4) / 4;
    const rssi = Math.round(Math.max(-125, Math.min(-40, -75 - 28 * logD + 3 * fade)));
    // The firmware's packet score: SNR margin over the SF threshold, less a length penalty.
    const margin = (snr - SNR_THRESHOLD_DB) / 10;
    const score = Math.round(Math.max(0, Math.min(1, margin * (1 - packetBytes / 256))) * 1000);
    return { snr, rssi, score };
  }

  function hashOf(payloadType, payload, pathLenByte) {
    const sha = crypto.createHash('sha256');
    sha.update(payloadType === 9 ? Buffer.from([payloadType, pathLenByte]) : Buffer.from([payloadType]));
    sha.update(payload);
    return sha.digest('hex').slice(0, 16).toUpperCase();
  }

  function transportCodeFor(sender, payloadType, payload) {
    const hmac = crypto.createHmac('sha256', regionKeys.get(nodes[sender].region));
    hmac.update(Buffer.from([payloadType]));
    hmac.update(payload);
    const digest = hmac.digest();
    let code = digest[0] | (digest[1] << 8);
    if (code === 0) code = 1;
    else if (code === 0xffff) code = 0xfffe;
    return HEX[code & 0xff] + HEX[code >> 8] + '0000';
  }

  // ---- payload builders -------------------------------------------------------------------

  function encryptedPayload(dest, src, blocks) {
    const payload = Buffer.allocUnsafe(4 + 16 * blocks);
    payload[0] = secrets[dest].publicKey[0];
    payload[1] = secrets[src].publicKey[0];
    traffic.fill(payload, 2);
    return payload;
  }

  function advertPayload(index, timestamp) {
    const secret = secrets[index];
    secret.signed.writeUInt32LE(timestamp >>> 0, 32);
    const signature = crypto.sign(null, secret.signed, secret.privateKey);
    return Buffer.concat([secret.publicKey, secret.signed.subarray(32, 36), signature, secret.appData]);
  }

  function fillTemplate(template, sender, channelName) {
    const node = nodes[sender];
    return template.replace(/\{(\w+)\}/g, (_, field) => {
      switch (field) {
        case 'town': return world.towns.length ? traffic.pick(world.towns).name : 'here';
        case 'site': return nodes[traffic.pick(byRole.repeater)].name;
        case 'other': return nodes[traffic.pick(byRole.companion)].name;
        case 'n': return String(traffic.between(1, 9));
        case 'snr': return (traffic.between(-40, 40) / 4).toFixed(2);
        case 'lat': return (node.lat + traffic.gaussian() * 0.01).toFixed(5);
        case 'lon': return (node.lon + traffic.gaussian() * 0.01).toFixed(5);
        default: return channelName;
      }
    });
  }

  function groupTextPayload(channel, sender, text, timestamp) {
    const body = `${nodes[sender].name}: ${text}`;
    const bodyBytes = Buffer.byteLength(body, 'utf8');
    const plain = Buffer.alloc(Math.ceil((5 + bodyBytes) / 16) * 16);
    plain.writeUInt32LE(timestamp >>> 0, 0);
    plain.write(body, 5, 'utf8');
    const ciphertext = channel.cipher.update(plain);
    const mac = crypto.createHmac('sha256', channel.secret).update(ciphertext).digest();
    const payload = Buffer.allocUnsafe(3 + ciphertext.length);
    payload[0] = channel.hashByte;
    payload[1] = mac[0];
    payload[2] = mac[1];
    ciphertext.copy(payload, 3);
    return payload;
  }

  // ---- transmission kinds -----------------------------------------------------------------

  /** Route choice for addressed packets: fixed direct route, or flood when none is "known". */
  function addressed(from, to) {
    if (traffic.chance(options.directShare)) return { mode: 'direct', route: route(from, to) };
    return { mode: 'flood', route: null };
  }

  function queueReply(kind, from, to, forward) {
    if (!traffic.chance(options.followUpRate)) return;
    // A direct packet is answered along the reversed route; a flood gets a flooded PATH return.
    if (forward.mode === 'direct') followUps.push({ kind, from, to, plan: { mode: 'direct', route: [...forward.route].reverse() } });
    else followUps.push({ kind: 'PATH', from, to, plan: { mode: 'flood', route: null } });
  }

  const makers = {
    GRP_TXT() {
      const sender = chatty.length && traffic.chance(0.7) ? traffic.pick(chatty) : traffic.pick(byRole.companion);
      const channel = channelState[pickChannel(traffic)];
      const templates = CHANNEL_TEXTS[channel.name] || CHANNEL_TEXTS['#test'];
      let text = fillTemplate(traffic.pick(templates), sender, channel.name);
      while (Buffer.byteLength(`${nodes[sender].name}: ${text}`, 'utf8') > MAX_TEXT_BYTES) text = text.slice(0, -1);
      const timestamp = nodeClockSec(sender) >>> 0;
      const payload = groupTextPayload(channel, sender, text, timestamp);
      return { payloadType: 5, sender, payload, mode: 'flood', details: { channel: channel.name, sender: nodes[sender].name, text, timestamp } };
    },
    TXT_MSG() {
      const sender = traffic.pick(byRole.companion);
      const dest = contacts[sender].length ? traffic.pick(contacts[sender]) : traffic.pick(byRole.companion);
      if (dest === sender) return null;
      const plan = addressed(sender, dest);
      queueReply('ACK', dest, sender, plan);
      return { payloadType: 2, sender, dest, payload: encryptedPayload(dest, sender, traffic.between(1, 4)), ...plan };
    },
    REQ() {
      const sender = traffic.pick(byRole.companion);
      const dest = traffic.pick(servers);
      const plan = addressed(sender, dest);
      queueReply('RESPONSE', dest, sender, plan);
      return { payloadType: 0, sender, dest, payload: encryptedPayload(dest, sender, 1), ...plan };
    },
    RESPONSE(from, to, plan) {
      const sender = from ?? traffic.pick(servers);
      const dest = to ?? traffic.pick(byRole.companion);
      return { payloadType: 1, sender, dest, payload: encryptedPayload(dest, sender, Number(pickResponseBlocks(traffic))), ...(plan || addressed(sender, dest)) };
    },
    ACK(from, to, plan) {
      const sender = from ?? traffic.pick(byRole.companion);
      const dest = to ?? traffic.pick(byRole.companion);
      if (dest === sender) return null;
      return { payloadType: 3, sender, dest, payload: traffic.bytes(4), ...(plan || addressed(sender, dest)) };
    },
    PATH(from, to) {
      const sender = from ?? traffic.pick(byRole.companion);
      const dest = to ?? traffic.pick(byRole.companion);
      if (dest === sender) return null;
      return { payloadType: 8, sender, dest, payload: encryptedPayload(dest, sender, traffic.between(1, 3)), mode: 'flood', route: null };
    },
    ADVERT() {
      // Repeaters and rooms advertise more often than companions.
      const roll = traffic.float();
      const pool = roll < 0.45 ? byRole.repeater : roll < 0.55 && byRole.room.length ? byRole.room : roll < 0.6 && byRole.sensor.length ? byRole.sensor : byRole.companion;
      const sender = traffic.pick(pool);
      const timestamp = nodeClockSec(sender) >>> 0;
      const node = nodes[sender];
      return {
        payloadType: 4,
        sender,
        payload: advertPayload(sender, timestamp),
        mode: traffic.chance(0.8) ? 'flood' : 'zerohop',
        details: { pubKey: node.pubKey, timestamp, role: node.role, name: node.name, lat: node.hasLocation ? node.lat : null, lon: node.hasLocation ? node.lon : null },
      };
    },
    TRACE() {
      const sender = traffic.chance(0.5) ? traffic.pick(byRole.companion) : traffic.pick(byRole.repeater);
      let target = traffic.pick(byRole.repeater);
      if (target === sender) target = byRole.repeater.find((r) => r !== sender);
      if (target === undefined) return null;
      const outbound = [...route(sender, target), target].slice(0, 4);
      const hops = outbound.concat(outbound.slice(0, -1).reverse()); // out and back
      const code = traffic.chance(0.85) ? 0 : 1;
      const hashBytes = 1 << code;
      const payload = Buffer.allocUnsafe(9 + hops.length * hashBytes);
      traffic.fill(payload, 0, 4); // tag
      payload.writeUInt32LE(traffic.chance(0.5) ? 0 : traffic.uint32(), 4); // auth code
      payload[8] = code;
      hops.forEach((hop, i) => secrets[hop].publicKey.copy(payload, 9 + i * hashBytes, 0, hashBytes));
      return { payloadType: 9, sender, payload, mode: 'trace', route: hops, details: { tag: payload.readUInt32LE(0), hashBytes } };
    },
    ANON_REQ() {
      const sender = traffic.pick(byRole.companion);
      const dest = byRole.room.length && traffic.chance(0.7) ? traffic.pick(byRole.room) : traffic.pick(byRole.repeater);
      const payload = Buffer.allocUnsafe(35 + 16 * traffic.between(1, 2));
      payload[0] = secrets[dest].publicKey[0];
      secrets[sender].publicKey.copy(payload, 1); // the sender's key, so the server can reply
      traffic.fill(payload, 33);
      const plan = traffic.chance(0.7) ? { mode: 'flood', route: null } : { mode: 'direct', route: route(sender, dest) };
      queueReply('RESPONSE', dest, sender, plan);
      return { payloadType: 7, sender, dest, payload, ...plan };
    },
    CONTROL() {
      // Zero-hop node discovery: a request, then answers from neighbouring repeaters.
      const sender = traffic.pick(nearObserver);
      const prefixOnly = traffic.chance(0.3);
      const payload = Buffer.allocUnsafe(10);
      payload[0] = 0x80 | (prefixOnly ? 1 : 0);
      payload[1] = 1 << ROLE_IDS.repeater;
      traffic.fill(payload, 2, 6);
      payload.writeUInt32LE(traffic.chance(0.5) ? 0 : (nodeClockSec(sender) - 86400) >>> 0, 6);
      const tag = payload.readUInt32LE(2);
      const responders = graph.neighbours[sender].filter((n) => isRepeater[n]).slice(0, 3);
      for (const responder of responders) {
        followUps.push({ kind: 'DISCOVER_RESP', from: responder, to: sender, plan: { mode: 'zerohop', route: null }, extra: { tag, prefixOnly } });
      }
      return { payloadType: 11, sender, payload, mode: 'zerohop', details: { subtype: 'DISCOVER_REQ', tag } };
    },
    DISCOVER_RESP(from, to, plan, extra) {
      const keyBytes = extra.prefixOnly ? 8 : 32;
      const payload = Buffer.allocUnsafe(6 + keyBytes);
      payload[0] = 0x90 | nodes[from].roleId;
      const { snr } = linkSignal(to, nodes[from], 10);
      payload.writeInt8(Math.round(snr * 4), 1);
      payload.writeUInt32LE(extra.tag, 2);
      secrets[from].publicKey.copy(payload, 6, 0, keyBytes);
      return { payloadType: 11, sender: from, dest: to, payload, mode: 'zerohop', details: { subtype: 'DISCOVER_RESP', tag: extra.tag } };
    },
  };

  // ---- propagation ------------------------------------------------------------------------

  /** Who can hear a transmission: each observer's first transmitter in range and its hop index. */
  function hearings(tx) {
    const heard = [];
    if (tx.mode === 'flood') {
      flood(tx.sender);
      for (const observer of observers) {
        const host = observer.node;
        if (host === tx.sender) continue;
        let best = -1;
        let ties = 0;
        for (const v of graph.neighbours[host]) {
          if (seen[v] !== generation || (v !== tx.sender && (!isRepeater[v] || depth[v] > options.maxFloodHops))) continue;
          if (best === -1 || depth[v] < depth[best]) { best = v; ties = 1; } else if (depth[v] === depth[best] && traffic.int(++ties) === 0) best = v;
        }
        if (best !== -1) heard.push({ observer, transmitter: best, hops: depth[best] });
      }
      return heard;
    }
    // Direct, zero-hop and trace: transmitters in order are the sender, then each relay.
    const relays = tx.mode === 'zerohop' ? [] : tx.route;
    for (const observer of observers) {
      const host = observer.node;
      if (host === tx.sender) continue;
      for (let j = 0; j <= relays.length; j++) {
        const transmitter = j === 0 ? tx.sender : relays[j - 1];
        if (transmitter === host || !graph.areNeighbours(transmitter, host)) continue;
        heard.push({ observer, transmitter, hops: j });
        break;
      }
    }
    return heard;
  }

  function transmit(tx) {
    const payloadType = tx.payloadType;
    const sender = tx.sender;
    const hashSize = tx.mode === 'trace' ? 1 : nodes[sender].hashSize;
    // Keep every packet within the 255-byte limit: a direct route too long for it is flooded.
    const headerRoom = MAX_PACKET_BYTES - 6 - tx.payload.length;
    if (tx.mode === 'direct' && tx.route.length * hashSize > headerRoom) tx.mode = 'flood';
    const flooded = tx.mode === 'flood';
    const transport = tx.mode !== 'zerohop' && traffic.chance(options.transportShare);
    const routeType = flooded ? (transport ? ROUTE.TRANSPORT_FLOOD : ROUTE.FLOOD) : (transport ? ROUTE.TRANSPORT_DIRECT : ROUTE.DIRECT);
    const headerHex = HEX[routeType | (payloadType << 2)] + (transport ? transportCodeFor(sender, payloadType, tx.payload) : '');
    const payloadHex = tx.payload.toString('hex').toUpperCase();
    const sharedHash = payloadType === 9 ? null : hashOf(payloadType, tx.payload, 0);

    let heard = hearings(tx);
    const wanted = Math.min(heard.length, Number(pickObserverCount(traffic)));
    for (let i = 0; i < wanted; i++) {
      const j = i + traffic.int(heard.length - i);
      const swap = heard[i];
      heard[i] = heard[j];
      heard[j] = swap;
    }
    heard = heard.slice(0, wanted);
    // Paths only for the observers that report (the flood tree is still in parent[]).
    for (const h of heard) {
      const host = h.observer.node;
      if (flooded) {
        const pathNodes = [];
        for (let at = h.transmitter; at !== sender; at = parent[at]) pathNodes.push(at);
        h.pathNodes = pathNodes.reverse();
        h.walk = [sender, ...pathNodes, host];
      } else {
        const relays = tx.mode === 'zerohop' ? [] : tx.route;
        // Direct: the header holds what is left to travel; TRACE holds SNRs instead.
        h.pathNodes = tx.mode === 'trace' ? [] : relays.slice(h.hops);
        h.walk = [sender, ...relays.slice(0, h.hops), host];
      }
    }
    for (const h of heard) h.delay = h.hops * traffic.between(options.hopDelayMs.min, options.hopDelayMs.max) + traffic.int(60);
    heard.sort((a, b) => a.delay - b.delay);

    // TRACE: each relay appends the SNR it measured on the link it heard the packet over.
    let traceSnrHex = '';
    if (tx.mode === 'trace') {
      let previous = sender;
      for (const hop of tx.route) {
        const { snr } = linkSignal(previous, nodes[hop], tx.payload.length);
        traceSnrHex += HEX[Math.round(snr * 4) & 0xff];
        previous = hop;
      }
    }

    const messages = [];
    const observations = [];
    const delays = [];
    const time = clock;
    for (const h of heard) {
      const hops = tx.mode === 'trace' ? h.hops : h.pathNodes.length;
      const pathLenByte = (tx.mode === 'trace' ? 0 : (hashSize - 1) << 6) | hops;
      let pathHex = '';
      if (tx.mode === 'trace') pathHex = traceSnrHex.slice(0, hops * 2);
      else for (const node of h.pathNodes) pathHex += secrets[node].prefixHex[hashSize];
      const raw = headerHex + HEX[pathLenByte] + pathHex + payloadHex;
      const signal = linkSignal(h.transmitter, nodes[h.observer.node], raw.length / 2);
      const heardAt = time + h.delay;
      messages.push({
        topic: h.observer.topic,
        payload: {
          raw,
          SNR: signal.snr,
          RSSI: signal.rssi,
          hash: sharedHash || hashOf(9, tx.payload, pathLenByte),
          score: signal.score,
          direction: 'rx',
          origin: h.observer.name,
          timestamp: new Date(heardAt).toISOString(),
        },
      });
      observations.push({ observer: h.observer.index, transmitter: h.transmitter, pathNodes: h.pathNodes, walk: h.walk });
      delays.push(h.delay);
    }
    return {
      kind: tx.kind,
      payloadType,
      routeType,
      hashSize,
      time,
      sender,
      senderPubKey: nodes[sender].pubKey,
      dest: tx.dest ?? null,
      route: tx.route || null,
      hash: sharedHash || (messages[0] ? messages[0].payload.hash : null),
      details: tx.details || null,
      messages,
      observations,
      delays,
    };
  }

  /** The next transmission somebody heard (unheard ones still advance the clock). */
  function nextTransmission() {
    for (let attempt = 0; attempt < 10000; attempt++) {
      let tx = null;
      if (followUps.length) {
        const reply = followUps.shift();
        clock += traffic.between(200, 2500);
        tx = makers[reply.kind](reply.from, reply.to, reply.plan, reply.extra);
      } else {
        clock += Math.max(1, Math.round(traffic.exponential(options.meanGapMs)));
        const kind = pickKind(traffic);
        tx = makers[kind]();
      }
      if (!tx) continue;
      tx.kind = PAYLOAD_TYPES[tx.payloadType];
      if (tx.mode === 'direct' && !tx.route) tx.route = [];
      const result = transmit(tx);
      if (result.messages.length) return result;
    }
    throw new Error('simulate: 10000 transmissions in a row unheard; are observers connected to the mesh?');
  }

  function heapPush(entry) {
    let at = backlog.length;
    backlog.push(entry);
    while (at > 0) {
      const up = (at - 1) >> 1;
      if (!earlier(entry, backlog[up])) break;
      backlog[at] = backlog[up];
      at = up;
    }
    backlog[at] = entry;
  }

  function heapPop() {
    const top = backlog[0];
    const last = backlog.pop();
    if (backlog.length) {
      let at = 0;
      for (;;) {
        let child = 2 * at + 1;
        if (child >= backlog.length) break;
        if (child + 1 < backlog.length && earlier(backlog[child + 1], backlog[child])) child++;
        if (!earlier(backlog[child], last)) break;
        backlog[at] = backlog[child];
        at = child;
      }
      backlog[at] = last;
    }
    return top.message;
  }

  function earlier(a, b) {
    return a.time < b.time || (a.time === b.time && a.seq < b.seq);
  }

  /**
   * The next observer report in time order. A report is released once the simulated clock
   * has passed it: every later transmission starts at or after the clock, so nothing heard
   * earlier can still appear.
   */
  function nextMessage() {
    while (backlog.length === 0 || backlog[0].time > clock) {
      const tx = nextTransmission();
      for (let i = 0; i < tx.messages.length; i++) {
        heapPush({ time: tx.time + tx.delays[i], seq: backlogSeq++, message: tx.messages[i] });
      }
    }
    return heapPop();
  }

  /** Exactly `n` observer reports, continuing the same stream as nextMessage(). */
  function messages(n) {
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = nextMessage();
    return out;
  }

  /**
   * Emit messages on timers. `ratePerSecond` (default 100; Infinity = as fast as possible,
   * yielding to the event loop between batches), stop after `count` messages or `durationMs`
   * of wall time, whichever comes first. `wallClock: true` restamps each message's timestamp
   * with the emission time (for live demos). Returns stop(); onDone({ emitted }) runs once.
   */
  function run({ ratePerSecond = 100, onMessage, count: limit = Infinity, durationMs = Infinity, wallClock = false, tickMs = 50, batchSize = 1000, onDone } = {}) {
    if (typeof onMessage !== 'function') throw new Error('simulate.run: onMessage must be a function');
    if (!(ratePerSecond > 0)) throw new Error('simulate.run: ratePerSecond must be positive');
    const unlimited = ratePerSecond === Infinity;
    const started = Date.now();
    let emitted = 0;
    let stopped = false;
    let timer = null;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      if (timer) (unlimited ? clearImmediate : clearTimeout)(timer);
      timer = null;
      if (onDone) onDone({ emitted });
    };
    const tick = () => {
      timer = null;
      if (stopped) return;
      const elapsed = Date.now() - started;
      const due = Math.min(limit, unlimited ? emitted + batchSize : Math.floor((elapsed * ratePerSecond) / 1000));
      while (emitted < due && !stopped) {
        const message = nextMessage();
        if (wallClock) message.payload.timestamp = new Date().toISOString();
        emitted++;
        onMessage(message);
      }
      if (stopped) return;
      if (emitted >= limit || elapsed >= durationMs) return stop();
      timer = unlimited ? setImmediate(tick) : setTimeout(tick, Math.min(tickMs, Math.max(1, 1000 / ratePerSecond)));
    };
    timer = unlimited ? setImmediate(tick) : setTimeout(tick, 0);
    return stop;
  }

  return {
    options,
    nodes,
    observers,
    channels,
    graph,
    get time() { return clock; },
    nextTransmission,
    nextMessage,
    messages,
    run,
  };
}

module.exports = { createSimulator, DEFAULTS };
