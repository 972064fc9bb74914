/** One line saying what a packet is: an advert's name, a channel message, or src → dest. */
import React from 'react';
import { NodeLink } from './NodeLink';

export function PacketSummary({ packet }) {
  if (packet.advert) {
    return <span>advert <NodeLink pubKey={packet.advert.pubKey} name={packet.advert.name} /> <span className="muted">{packet.advert.role}</span></span>;
  }
  if (packet.message) {
    return (
      <span className="msg-line">
        <span className="channel-name">{packet.message.channel}</span> <b>{packet.message.sender || '?'}</b>: {packet.message.text}
      </span>
    );
  }
  if (packet.channelHash) return <span className="muted">channel {packet.channelHash} (encrypted)</span>;
  if (packet.srcHash || packet.destHash) {
    return <span className="mono muted">{packet.srcHash || '??'} → {packet.destHash || '??'}</span>;
  }
  return <span className="muted">—</span>;
}
