/** Meteor.settings.public with the defaults the dashboard falls back to. */
import { Meteor } from 'meteor/meteor';

const PUBLIC_DEFAULTS = { tileUrl: null, defaultDataMode: 'reactive', methodRefreshMs: 2000 };

export function publicSettings() {
  const given = (Meteor.settings && Meteor.settings.public) || {};
  const settings = { ...PUBLIC_DEFAULTS, ...given };
  if (settings.defaultDataMode !== 'method') settings.defaultDataMode = 'reactive';
  if (!(settings.methodRefreshMs >= 250)) settings.methodRefreshMs = PUBLIC_DEFAULTS.methodRefreshMs;
  return settings;
}
