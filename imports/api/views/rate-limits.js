/**
 * DDPRateLimiter rules: per connection, on every view method and publication, so one client
 * (or one runaway dashboard) cannot monopolize the server.
 */
import { DDPRateLimiter } from 'meteor/ddp-rate-limiter';

export function registerRateLimits({ methods, publications, settings }) {
  const methodNames = new Set(methods);
  const publicationNames = new Set(publications);
  DDPRateLimiter.addRule({ type: 'method', name: (name) => methodNames.has(name), connectionId: () => true }, settings.limits.methodCallsPerSecond, 1000);
  DDPRateLimiter.addRule({ type: 'subscription', name: (name) => publicationNames.has(name), connectionId: () => true }, settings.limits.subscriptionsPerSecond, 1000);
}
