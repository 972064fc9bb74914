'use strict';
/**
 * A graceful stop for the server: on SIGTERM (systemd, Docker, `npm start`'s Ctrl-C), stop taking
 * input, finish what is queued and write it to MongoDB, then exit. Without it the process died
 * at once and the write-behind batches still pending (and every report still queued) were lost,
 * although the sources had already acknowledged them.
 *
 *   const graceful = createGracefulStop({ steps: [{ name, run: async () => summary }], deadlineMs, log, exit });
 *   process.once('SIGTERM', () => graceful.stop('SIGTERM'));
 *
 * Steps run one after another, in the order given (close the listener, stop the sources, drain
 * the pipeline, flush persistence); a step that throws is logged and the next one still runs.
 * After `deadlineMs` the process exits anyway (code 1), naming the step it was in; a second
 * stop() (a second Ctrl-C) exits at once (code 1). Exit code 0 when every step finished.
 * Pure apart from the injected `exit`, `log` and timers; Meteor-free.
 */

const GRACEFUL_STOP_DEFAULTS = {
  // Below systemd's default TimeoutStopSec (90 s) and `npm start`'s grace before SIGKILL.
  deadlineMs: 15000,
  // What the persistence step waits for MongoDB; below the deadline, so its failure is logged.
  flushTimeoutMs: 10000,
};

function createGracefulStop({ steps, deadlineMs = GRACEFUL_STOP_DEFAULTS.deadlineMs, log = console, exit = (code) => process.exit(code), setTimer = setTimeout, clearTimer = clearTimeout, now = Date.now } = {}) {
  if (!Array.isArray(steps)) throw new TypeError('createGracefulStop: steps must be an array of { name, run }');
  if (typeof deadlineMs !== 'number' || !(deadlineMs > 0) || !Number.isFinite(deadlineMs)) {
    throw new RangeError(`createGracefulStop: deadlineMs (settings shutdown.deadlineMs) is ${JSON.stringify(deadlineMs)}; it must be a positive number of milliseconds`);
  }
  for (const step of steps) {
    if (!step || typeof step.name !== 'string' || typeof step.run !== 'function') throw new TypeError('createGracefulStop: every step needs a name and a run() function');
  }
  let stopping = null; // the promise of the running stop
  let current = null; // the step running now
  let exited = false;
  const finish = (code) => {
    if (exited) return;
    exited = true;
    exit(code);
  };

  async function runSteps(reason) {
    const started = now();
    log.info(`stopping (${reason}): ${steps.map((step) => step.name).join(', ')}; at most ${Math.round(deadlineMs / 1000)} s`);
    let failed = 0;
    for (const step of steps) {
      current = step.name;
      try {
        const summary = await step.run();
        if (typeof summary === 'string' && summary) log.info(`stopping: ${step.name}: ${summary}`);
      } catch (err) {
        failed++;
        log.error(`stopping: ${step.name} failed: ${err && err.message ? err.message : err}`);
      }
    }
    current = null;
    log.info(`stopped in ${((now() - started) / 1000).toFixed(1)} s${failed ? ` (${failed} step${failed === 1 ? '' : 's'} failed)` : ''}`);
    return failed === 0 ? 0 : 1;
  }

  /** Begin the stop (idempotent: a second call exits at once). Resolves with the exit code. */
  function stop(reason = 'stop') {
    if (stopping) {
      log.warn(`${reason} again while stopping${current ? ` (in: ${current})` : ''}: exiting now`);
      finish(1);
      return stopping;
    }
    const timer = setTimer(() => {
      log.error(`stopping took longer than ${deadlineMs} ms${current ? ` (still in: ${current})` : ''}: exiting now`);
      finish(1);
    }, deadlineMs);
    if (timer && typeof timer.unref === 'function') timer.unref();
    stopping = runSteps(reason).then((code) => {
      clearTimer(timer);
      finish(code);
      return code;
    });
    return stopping;
  }

  return {
    stop,
    /** Whether a stop has begun (sources and handlers may refuse new work). */
    get stopping() {
      return stopping !== null;
    },
  };
}

/**
 * The server's stop steps, in order (each part may be null when the server runs without it):
 *   listener     `closeListener()`: stop accepting connections (a restarted server can listen)
 *   sources      the simulator, then MQTT with `stop({ graceful: true })`: PUBACKs of what was
 *                ingested go out and the connection closes cleanly, so a persistent session's
 *                next connection gets exactly what this one did not take
 *   pipeline     ingest everything still queued (`close()`)
 *   persistence  write every pending batch to MongoDB (`close(flushTimeoutMs)`); an error when
 *                some could not be written
 */
function serverStopSteps({ closeListener = null, simulatorFeed = null, mqttSources = null, pipeline, persistence = null, flushTimeoutMs = GRACEFUL_STOP_DEFAULTS.flushTimeoutMs }) {
  return [
    {
      name: 'listener',
      run: () => {
        if (closeListener) closeListener();
        return closeListener ? 'port closed' : 'none';
      },
    },
    {
      name: 'sources',
      run: async () => {
        if (simulatorFeed) simulatorFeed.stop();
        if (mqttSources) await mqttSources.stop({ graceful: true });
        const brokers = mqttSources ? mqttSources.stats().length : 0;
        return [simulatorFeed && 'simulator', mqttSources && `${brokers} MQTT broker${brokers === 1 ? '' : 's'}`].filter(Boolean).join(', ') || 'none';
      },
    },
    {
      name: 'pipeline',
      run: async () => {
        await pipeline.close();
        const { accepted, rejected } = pipeline.stats();
        return `queue drained (${accepted} reports accepted, ${rejected} rejected since start)`;
      },
    },
    {
      name: 'persistence',
      run: async () => {
        if (!persistence) return 'off';
        if (persistence.stopRetention) persistence.stopRetention();
        const failedBefore = persistence.stats().failed;
        const { pending, written, failed } = await persistence.close(flushTimeoutMs);
        const failedNow = failed - failedBefore;
        if (pending > 0 || failedNow > 0) throw new Error(`${pending} writes not flushed and ${failedNow} failed while stopping (${written} written since start); see the warnings above`);
        return `every write flushed (${written} since start)`;
      },
    },
  ];
}

module.exports = { createGracefulStop, serverStopSteps, GRACEFUL_STOP_DEFAULTS };
