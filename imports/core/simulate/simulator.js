'use strict';
/**
 * A seeded, deterministic synthetic MeshCore mesh that speaks exactly what observers publish
 * over MQTT (meshcoretomqtt's `packets` topic), for demos, tests and benchmarks.
 *
 * Rooms: profiles.js (options and named profiles), world.js (nodes, keys, placement,
 * observers), radio.js (neighbour graph, floods, routes, link signal), traffic.js (what is
 * sent and how observers report it), packets.js (wire-format encoders, shared with
 * hostile.js). This file puts them together and orders the reports in time.
 *
 * The world: nodes on a map (repeaters, rooms, sensors, companions clustered around towns),
 * each with a real ed25519 key pair derived from the seed, and a neighbour graph from radio
 * range. Traffic: every transmission is built byte for byte in the MeshCore wire format
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
 * same options give the same messages byte for byte (a digest test pins the default stream).
 * The message stream is in the order observers heard things: overlapping transmissions
 * interleave, timestamps never go back.
 *
 * Speed (Node 20, one core, 1,000,000 `nextMessage()` calls): see the README's simulator
 * section; advert signing (ed25519) and the flood model are the biggest costs. Floods and
 * routes scan repeater-only neighbour lists, and the graph is built through a spatial grid,
 * so the large profile's world builds in seconds.
 */
const { createPrng } = require('../prng');
const { DEFAULTS, PROFILES, PROFILE_NAMES, LARGE_UNCALIBRATED, resolveOptions } = require('./profiles');
const { buildWorld } = require('./world');
const { buildGraph, createRadio } = require('./radio');
const { createTraffic, describeChannels } = require('./traffic');
const { createStatusModel } = require('./status');

/**
 * Create a simulator. See DEFAULTS (profiles.js) for every option; `profile` names a preset
 * (PROFILE_NAMES) that the other options override. Returns:
 *   nodes, observers, channels  descriptors (node pubKey lowercase hex; observer id uppercase, as
 *                               in the topic; channels fit decode.js createKeyring)
 *   graph                       { neighbours[i], areNeighbours(a, b), distanceKm(a, b) } by node index
 *   nextTransmission()          one heard transmission: { kind, payloadType, routeType, hashSize,
 *                               time, sender, senderPubKey, dest, route, hash, details, messages[],
 *                               observations[] ({ observer, transmitter, pathNodes, walk }, one per
 *                               message), delays[] (ms after `time` each was heard) }
 *   nextMessage(), messages(n)  observer reports { topic, payload } in time order (transmissions
 *                               merged by `delays`); with `withTruth`, also `truth: { hops }`
 *   run({ ratePerSecond, onMessage, count, durationMs, wallClock, onDone }) -> stop()
 *   statusMessages(timeMs)      one `status` message per observer ({ topic, payload }, status.js),
 *                               from its own seeded stream: the packet stream is unchanged
 *   time                        the simulated clock (ms)
 * Use one simulator either through nextTransmission() or through the message stream: the
 * stream draws its transmissions from the same generator.
 */
function createSimulator(input = {}) {
  const options = resolveOptions(input);
  const world = buildWorld(options);
  const graph = buildGraph(world.nodes, options);
  const { nodes, observers } = world;
  const channels = describeChannels(options.channels);
  const traffic = createPrng(options.seed).fork('traffic');
  const radio = createRadio({ nodes, graph, observers, options, traffic });
  const model = createTraffic({ options, world, graph, radio, channels, traffic });
  const nextTransmission = model.nextTransmission;

  // Reports heard but not yet emitted, as a binary min-heap on (time, seq): transmissions
  // overlap in time, so the stream interleaves them in the order observers heard them.
  const backlog = [];
  let backlogSeq = 0;

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
    while (backlog.length === 0 || backlog[0].time > model.time) {
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

  let statusModel = null;
  /** Every observer's status at `timeMs` (default: the simulated clock). */
  function statusMessages(timeMs = model.time) {
    if (statusModel === null) statusModel = createStatusModel({ observers, seed: options.seed });
    return statusModel.messages(timeMs);
  }

  return {
    options,
    nodes,
    observers,
    channels,
    graph,
    get time() { return model.time; },
    nextTransmission,
    nextMessage,
    messages,
    run,
    statusMessages,
  };
}

module.exports = { createSimulator, DEFAULTS, PROFILES, PROFILE_NAMES, LARGE_UNCALIBRATED };
