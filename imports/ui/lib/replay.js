'use strict';
/**
 * The map's route replay over what the store holds: `range` is { from, until } (the routes view's
 * oldest and newest stored times, at most the last 24 h); the slider's position `at` is the end of
 * a window of `windowMs`, and Play moves it by PLAY_STEP_MS per tick.
 */
const PLAY_STEP_MS = 30 * 1000;

/**
 * Where replay starts: one window after the oldest stored time, so the first window is full.
 * When the store is younger than a window that would end past the newest packet, and Play would
 * stop at once with nothing played: then one step after the oldest stored time, so the first
 * window shows the oldest traffic and Play walks through the rest.
 */
function replayStart(range, windowMs) {
  const full = range.from + windowMs;
  return full < range.until ? full : Math.min(range.from + PLAY_STEP_MS, range.until);
}

/** Where Play starts: from `at`, or from the start again when `at` is unset or at the end. */
function playFrom(range, at, windowMs) {
  if (!Number.isFinite(at) || at >= range.until) return replayStart(range, windowMs);
  return Math.max(range.from, at);
}

/** Why Play cannot play (the store holds less than one step), or null when it can. */
function replayBlocked(range) {
  if (!range) return 'nothing is stored yet';
  const spanMs = range.until - range.from;
  if (spanMs < PLAY_STEP_MS) return `only ${Math.max(0, Math.round(spanMs / 1000))} s of traffic is stored: nothing to play yet (the window shows it all)`;
  return null;
}

module.exports = { replayStart, playFrom, replayBlocked, PLAY_STEP_MS };
