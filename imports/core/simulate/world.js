'use strict';
/**
 * The simulated world: nodes (role, name, key pair, position, clock, hop hash size) and the
 * observers that sit at some of them. Everything comes from the `world` and `keys` forks of
 * the seed, in a fixed order, so a world replays exactly.
 */
const { createPrng, weightedPicker } = require('../prng');
const { ROLE_IDS, keyPairFromSeed, advertAppData, advertSigner } = require('./packets');

// MeshCore's default RTC epoch: a node whose clock was never set adverts times near it.
const UNSET_RTC_EPOCH = 1715770351;
const KM_PER_DEG_LAT = 111.32;

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
// Suffixes for 'nearest-town' repeater names ("Tacoma Ridge", "Kent Water Tower").
const SITE_SUFFIXES = ['Hill', 'Ridge', 'Peak', 'Water Tower', 'Fire Stn', 'North', 'South', 'East', 'West', 'Heights', 'Tower', 'Rooftop'];
const REPEATER_STYLES = ['{site} Repeater', '{site} RPT', '{site} 📡', '{site}-R', '{call} {site}', '{site} 🌲'];
const FIRST_NAMES = [
  'Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Mallory', 'Niaj',
  'Olivia', 'Peggy', 'Rupert', 'Sybil', 'Trent', 'Victor', 'Walter', 'Xena', 'Yuri', 'Zoe', 'Volna',
  'Blorko', 'Derek', 'Mika', 'Priya', 'Tomas', 'Lena', 'Kai', 'Rosa', 'Omar', 'Hana', 'Felix', 'Ines',
];
const NAME_EMOJI = ['🦑', '🤠', '🚲', '📻', '🌊', '🦦', '😺', '🌑', '🪶', '🐝'];
const DEVICES = ['T-Deck', 'Heltec', 'RAK', 'T1000', 'Xiao', 'Mobile'];
const ROOM_NAMES = ['Bay Mesh Room', 'SJ Chat', 'Peninsula BBS', 'Hackers Room', 'Weather Room', 'Emergency Net', 'East Bay BBS', 'Ham Shack'];

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

function distanceKm(a, b) {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  return Math.sqrt(dx * dx + dy * dy);
}

/**
 * Builds the static world: nodes with keys and positions, then observers. Returns
 * { nodes, secrets, observers, towns, layout } (layout: the world PRNG, which the traffic
 * model draws its contact lists from next).
 */
function buildWorld(options) {
  const root = createPrng(options.seed);
  const layout = root.fork('world');
  const keys = root.fork('keys');
  const half = options.areaKm / 2;
  const kmPerDegLon = KM_PER_DEG_LAT * Math.cos((options.center.lat * Math.PI) / 180);
  const clampKm = (v) => Math.max(-half, Math.min(half, v));
  const toLat = (y) => Math.round((options.center.lat + y / KM_PER_DEG_LAT) * 1e6) / 1e6;
  const toLon = (x) => Math.round((options.center.lon + x / kmPerDegLon) * 1e6) / 1e6;
  const towns = options.towns.map((t) => ({
    name: t.name,
    x: clampKm((t.lon - options.center.lon) * kmPerDegLon),
    y: clampKm((t.lat - options.center.lat) * KM_PER_DEG_LAT),
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
  const nearestTown = (point) => {
    let best = null;
    for (const town of towns) if (!best || distanceKm(point, town) < distanceKm(point, best)) best = town;
    return best ? best.name : 'Field';
  };

  const addNode = (role, name, point, hasLocation) => {
    const index = nodes.length;
    const keyPair = keyPairFromSeed(keys.bytes(32));
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
      pubKey: keyPair.publicKey.toString('hex'),
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
    // appData never changes for a node, so the signed message is prepared once.
    const signer = advertSigner(keyPair, advertAppData(node.roleId, node.name, hasLocation ? lat : null, hasLocation ? lon : null));
    signer.prefixHex = [null, 1, 2, 3].map((size) => (size ? keyPair.publicKey.toString('hex', 0, size).toUpperCase() : ''));
    secrets.push(signer);
    return node;
  };

  if (options.repeaterSites === 'nearest-town') {
    for (let i = 0; i < options.repeaters; i++) {
      const point = uniformPoint();
      const site = `${nearestTown(point)} ${layout.pick(SITE_SUFFIXES)}`;
      const name = layout.pick(REPEATER_STYLES).replace('{site}', site).replace('{call}', callsign(layout));
      addNode('repeater', name, point, layout.chance(0.95));
    }
  } else {
    const sites = [...(options.repeaterSites || REPEATER_SITES)];
    for (let i = 0; i < options.repeaters; i++) {
      const site = sites.length ? sites.splice(layout.int(sites.length), 1)[0] : `Site ${i + 1}`;
      const name = layout.pick(REPEATER_STYLES).replace('{site}', site).replace('{call}', callsign(layout));
      addNode('repeater', name, uniformPoint(), layout.chance(0.95));
    }
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

  const observers = placeObservers(nodes, options, layout);
  return { nodes, secrets, observers, towns, layout };
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

module.exports = { buildWorld, distanceKm, callsign, FIRST_NAMES, NAME_EMOJI };
