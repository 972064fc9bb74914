'use strict';
/**
 * What the mesh sends: who talks to whom, each payload built in the wire format, replies,
 * and one transmission turned into the reports of the observers that heard it.
 * All randomness comes from the `traffic` fork of the seed (contacts from the world fork).
 */
const crypto = require('crypto');
const { weightedPicker } = require('../prng');
const { channelKeyFromName, PAYLOAD_TYPES } = require('../decode');
const {
  ROUTE, ROLE_IDS, MAX_PACKET_BYTES, HEX, headerHex, contentHashHex, transportCodeHex, signAdvert, channelCipher, groupTextPayload,
} = require('./packets');

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

/** Channel options -> [{ name, key (hex), hash (1-byte hex) }], as decode.js createKeyring takes. */
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
 * The traffic model over a built world and radio. Returns { nextTransmission(), time }.
 * `traffic` is the PRNG the radio draws from too: one stream, in a fixed order.
 */
function createTraffic({ options, world, graph, radio, channels, traffic }) {
  const { nodes, secrets, observers } = world;
  const { isRepeater, route, hearings, linkSignal } = radio;
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
  const channelState = channels.map(channelCipher);

  const pickKind = weightedPicker(options.payloadMix);
  const pickChannel = weightedPicker(channelState.map((c, i) => [i, options.channelWeights[i]]));
  const pickObserverCount = weightedPicker(options.observersPerTransmission);
  const pickResponseBlocks = weightedPicker({ 1: 40, 2: 25, 3: 15, 4: 10, 6: 10 });

  let clock = options.startTime;
  const followUps = [];
  // Startup advert burst: node indices, repeaters and rooms first (their names label hops);
  // every other transmission is one of these until all have gone out.
  const burst = [...byRole.repeater, ...byRole.room, ...byRole.sensor, ...byRole.companion];
  burst.length = options.startupAdverts === true ? burst.length : Math.min(burst.length, Number(options.startupAdverts) || 0);
  let burstAt = 0;
  let burstTurn = false; // burst adverts alternate with ordinary traffic, which starts at once

  const nodeClockSec = (index) => Math.floor(clock / 1000) + nodes[index].clockSkewSec;

  // ---- payload builders -------------------------------------------------------------------

  function encryptedPayload(dest, src, blocks) {
    const payload = Buffer.allocUnsafe(4 + 16 * blocks);
    payload[0] = secrets[dest].publicKey[0];
    payload[1] = secrets[src].publicKey[0];
    traffic.fill(payload, 2);
    return payload;
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
      const payload = groupTextPayload(channel, `${nodes[sender].name}: ${text}`, timestamp);
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
    ADVERT(from) {
      let sender = from;
      if (sender === undefined) {
        // Repeaters and rooms advertise more often than companions.
        const roll = traffic.float();
        const pool = roll < 0.45 ? byRole.repeater : roll < 0.55 && byRole.room.length ? byRole.room : roll < 0.6 && byRole.sensor.length ? byRole.sensor : byRole.companion;
        sender = traffic.pick(pool);
      }
      const timestamp = nodeClockSec(sender) >>> 0;
      const node = nodes[sender];
      return {
        payloadType: 4,
        sender,
        payload: signAdvert(secrets[sender], timestamp),
        // Startup adverts flood, so the whole mesh (and every observer in range) learns them.
        mode: from !== undefined || traffic.chance(0.8) ? 'flood' : 'zerohop',
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

  // ---- one transmission, as its observers report it ---------------------------------------

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
    const packetHead = headerHex(routeType, payloadType) + (transport ? transportCodeHex(regionKeys.get(nodes[sender].region), payloadType, tx.payload) : '');
    const payloadHex = tx.payload.toString('hex').toUpperCase();
    const sharedHash = payloadType === 9 ? null : contentHashHex(payloadType, tx.payload, 0);

    let heard = hearings(tx);
    // Per-hop loss (options.hopSurvival): a far observer hears fewer floods than a near one.
    if (options.hopSurvival < 1) heard = heard.filter((h) => h.hops === 0 || traffic.float() < options.hopSurvival ** h.hops);
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
        for (let at = h.transmitter; at !== sender; at = radio.parent[at]) pathNodes.push(at);
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
      const raw = packetHead + HEX[pathLenByte] + pathHex + payloadHex;
      const signal = linkSignal(h.transmitter, nodes[h.observer.node], raw.length / 2);
      const heardAt = time + h.delay;
      const message = {
        topic: h.observer.topic,
        payload: {
          raw,
          SNR: signal.snr,
          RSSI: signal.rssi,
          hash: sharedHash || contentHashHex(9, tx.payload, pathLenByte),
          score: signal.score,
          direction: 'rx',
          origin: h.observer.name,
          timestamp: new Date(heardAt).toISOString(),
        },
      };
      // Ground truth for hop resolution: the node behind each hop hash in this report's path.
      if (options.withTruth) message.truth = { hops: h.pathNodes.map((n) => nodes[n].pubKey) };
      messages.push(message);
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
      if (burstAt < burst.length && (burstTurn = !burstTurn)) {
        // Adverts of a running mesh, a fraction of a second apart.
        clock += traffic.between(50, 400);
        tx = makers.ADVERT(burst[burstAt++]);
      } else if (followUps.length) {
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

  return {
    nextTransmission,
    get time() { return clock; },
  };
}

module.exports = { createTraffic, describeChannels };
