/** One decrypted channel message as a chat bubble: sender, time, text, and who heard it. */
import React from 'react';
import { formatClock, formatDb } from '../lib/format';

export function ChatMessage({ message }) {
  const heardBy = message.observers.length;
  return (
    <div className="chat-msg" data-hash={message.hashes[0]}>
      <div className="chat-meta">
        <b className="sender">{message.sender || 'unknown sender'}</b>
        <span className="num muted">{formatClock(message.firstHeard)}</span>
        {message.repeats > 1 && <span className="tag" title="the sender's radio sent it again">×{message.repeats}</span>}
        <span className="chat-foot muted small num">
          {heardBy} observer{heardBy === 1 ? '' : 's'} · {message.hopCounts.join('/')} hops · SNR {formatDb(message.bestSnr)}
        </span>
      </div>
      <div className="chat-text">{message.text}</div>
    </div>
  );
}
