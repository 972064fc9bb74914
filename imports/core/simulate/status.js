'use strict';
/**
 * Observer status messages for the simulated mesh: what meshcoretomqtt publishes on
 * `meshcore/<region>/<observer>/status` (the online word, identity, radio settings, and under
 * `stats` the firmware's battery, uptime, noise floor, airtime and receive errors), so the
 * Observer page has health data with no radio.
 *
 * Its own PRNG stream (the seed's `status` fork): asking for statuses never shifts the packet
 * stream, which a digest test pins byte for byte.
 *
 * Plausible, not physical: mains-powered repeaters hold their battery near full, companions
 * drain slowly and recharge; the noise floor wanders around a per-site level; airtime grows
 * with uptime; a reboot now and then resets uptime and counters; one observer in twenty is
 * offline for a while.
 */
const { createPrng } = require('../prng');

const MODELS = ['Heltec V3', 'RAK4631', 'T-Beam', 'Station G2', 'Xiao S3'];
const FIRMWARE = ['v1.7.4', 'v1.8.0', 'v1.8.1'];
const RADIO = '910.525,62.5,7,5';

/**
 * `observers`: the simulator's observer descriptors ({ id, name, region, topic }); `seed`: the
 * simulator's seed. Returns { messages(timeMs) -> [{ topic, payload }] } (one per observer).
 */
function createStatusModel({ observers, seed }) {
  const prng = createPrng(seed).fork('status');
  let lastTime = null;
  const sites = observers.map((observer, index) => ({
    observer,
    topic: observer.topic.replace(/\/packets$/, '/status'),
    mains: index % 4 !== 3, // observers at repeaters (3 in 4) are on mains or solar
    batteryMv: 3900 + prng.int(300),
    noiseBase: -118 + prng.int(16),
    uptimeSecs: 3600 + prng.int(30 * 86400),
    txAirSecs: 0,
    rxAirSecs: 0,
    recvErrors: prng.int(50),
    offlineFor: 0,
    model: prng.pick(MODELS),
    firmware: prng.pick(FIRMWARE),
  }));

  // Airtime so far in proportion to uptime (about 2 % transmit, 10 % receive).
  for (const site of sites) {
    site.txAirSecs = Math.round(site.uptimeSecs * 0.02);
    site.rxAirSecs = Math.round(site.uptimeSecs * 0.1);
  }

  function reboot(site) {
    site.uptimeSecs = 0;
    site.txAirSecs = 0;
    site.rxAirSecs = 0;
    site.recvErrors = 0;
  }

  function step(site, seconds) {
    if (site.offlineFor > 0) {
      site.offlineFor = Math.max(0, site.offlineFor - seconds);
      if (site.offlineFor === 0) reboot(site); // back from an outage
      return;
    }
    if (prng.chance(0.002)) site.offlineFor = 300 + prng.int(1200);
    if (prng.chance(0.001)) reboot(site);
    site.uptimeSecs += seconds;
    // Roughly 1-4 % transmit and 5-15 % receive duty on a busy mesh.
    site.txAirSecs += Math.round(seconds * (0.01 + 0.03 * prng.float()));
    site.rxAirSecs += Math.round(seconds * (0.05 + 0.1 * prng.float()));
    if (prng.chance(0.2)) site.recvErrors += 1 + prng.int(3);
    if (site.mains) site.batteryMv = Math.min(4200, Math.max(4050, site.batteryMv + prng.int(21) - 10));
    else {
      site.batteryMv -= Math.round(seconds / 60) * (1 + prng.int(3));
      if (site.batteryMv < 3450) site.batteryMv = 4150; // recharged
    }
  }

  function messages(timeMs) {
    const seconds = lastTime === null ? 60 : Math.max(0, Math.round((timeMs - lastTime) / 1000));
    lastTime = timeMs;
    const timestamp = new Date(timeMs).toISOString();
    return sites.map((site) => {
      step(site, seconds);
      const online = site.offlineFor === 0;
      const payload = {
        status: online ? 'online' : 'offline',
        timestamp,
        origin: site.observer.name,
        origin_id: site.observer.id,
        model: site.model,
        firmware_version: site.firmware,
        radio: RADIO,
        client_version: 'meshpulse-simulator',
      };
      if (online) {
        payload.stats = {
          battery_mv: site.batteryMv,
          uptime_secs: site.uptimeSecs,
          noise_floor: Math.round(site.noiseBase + prng.gaussian() * 2),
          tx_air_secs: site.txAirSecs,
          rx_air_secs: site.rxAirSecs,
          recv_errors: site.recvErrors,
        };
      }
      return { topic: site.topic, payload };
    });
  }

  return { messages };
}

module.exports = { createStatusModel };
