/**
 * The Channels page's data: the channel list, and the chosen channel's messages (the first
 * decryptable channel when none is chosen). `older()` pages back with the view's `before`
 * cursor; `latest()` returns to the live end. `valid` is false for a chosen hash that is not 2 hex
 * digits (nothing is asked for it; the page says so).
 */
import { useState } from 'react';
import { useView } from './use-view';
import { isChannelHash } from '../lib/channel-hash';

const MESSAGE_LIMIT = 100;

export function useChannelChat(hash) {
  const channels = useView('channels', {});
  // The page cursor belongs to one channel: choosing another starts at its latest messages.
  const [cursor, setCursor] = useState({ channel: null, before: null });
  const list = channels.data ? channels.data.channels : [];
  const fallback = list.find((channel) => !channel.encrypted);
  const chosen = hash ? hash.toLowerCase() : fallback ? fallback.hash : null;
  const before = cursor.channel === chosen ? cursor.before : null;
  const params = { channel: chosen || '00', limit: MESSAGE_LIMIT };
  if (before !== null) params.before = before;
  const valid = isChannelHash(chosen);
  const messages = useView('channelMessages', params, { enabled: valid });
  return {
    channels,
    list,
    chosen,
    valid,
    current: list.find((channel) => channel.hash === chosen) || null,
    messages,
    paging: before !== null,
    older: () => messages.data && messages.data.nextBefore && setCursor({ channel: chosen, before: messages.data.nextBefore }),
    latest: () => setCursor({ channel: null, before: null }),
  };
}
