/** Channels: every channel hash heard, and the chosen channel's decrypted messages as a live chat. */
import React from 'react';
import { useChannelChat } from '../hooks/use-channel-chat';
import { useNow } from '../hooks/use-now';
import { PageHeader } from '../components/PageHeader';
import { ViewState } from '../components/ViewState';
import { Link } from '../components/Link';
import { Clip } from '../components/Clip';
import { ChatView } from '../components/ChatView';
import { Sparkline } from '../components/Sparkline';
import { formatAgo, formatNumber } from '../lib/format';
import { channelNotice } from '../lib/channel-hash';

function ChannelList({ list, chosen, now }) {
  return (
    <ul className="channel-list">
      {list.map((channel) => (
        <li key={channel.hash} className={channel.hash === chosen ? 'current' : ''}>
          <Link to={`/channels/${channel.hash}`}>
            <div className="channel-row">
              <b>{channel.name || `#${channel.hash}`}</b>
              {channel.encrypted && <span className="tag">encrypted</span>}
              <span className="muted small num">{formatAgo(channel.lastHeard, now)}</span>
            </div>
            <div className="channel-row muted small">
              <Clip as="span" className="ellipsis">{channel.lastMessage.text ? `${channel.lastMessage.sender || '?'}: ${channel.lastMessage.text}` : 'no key for this channel'}</Clip>
            </div>
            <div className="channel-row small">
              <span className="num">{formatNumber(channel.messagesLastHour)}/h · {formatNumber(channel.senders)} senders</span>
              <Sparkline values={channel.hourly} width={90} height={18} />
            </div>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function ChannelsPage({ hash }) {
  const chat = useChannelChat(hash);
  const now = useNow(5000);
  const { messages, current } = chat;
  const title = current ? current.name || `#${current.hash}` : chat.valid ? `#${chat.chosen}` : 'Channels';
  // A chosen hash that is malformed, or has no stored message, says so rather than leaving the panel empty.
  const notice = chat.chosen ? channelNotice({ hash: chat.chosen, known: Boolean(current), messageCount: messages.data ? messages.data.messages.length : null }) : null;
  return (
    <>
      <PageHeader title="Channels" subtitle="Decrypted group messages, per channel, as they arrive." />
      <ViewState loading={chat.channels.loading} error={chat.channels.error} hasData={Boolean(chat.channels.data)}
        empty={chat.channels.data && chat.list.length === 0} emptyText="No channel traffic heard yet.">
        <div className="channels-layout">
          <ChannelList list={chat.list} chosen={chat.chosen} now={now} />
          <section className="chat-panel">
            <header className="chat-head">
              <h2>{title}</h2>
              {current && <span className="muted small num">{formatNumber(current.messages)} stored · {formatNumber(current.decrypted)} decrypted</span>}
              <span className="spacer" />
              {chat.paging && <button type="button" className="btn" onClick={chat.latest}>Back to latest</button>}
              {messages.data && messages.data.nextBefore && <button type="button" className="btn" onClick={chat.older}>Older</button>}
            </header>
            {current && current.encrypted ? (
              <div className="state state-empty">No key for channel {current.hash}: its messages cannot be read. Add the channel to settings.channels.</div>
            ) : !chat.valid && chat.chosen ? (
              <div className="state state-error" role="alert">{notice.text}</div>
            ) : (
              <ViewState loading={messages.loading} error={messages.error} hasData={Boolean(messages.data)}
                empty={messages.data && messages.data.messages.length === 0} emptyText={notice ? notice.text : 'No decrypted message on this channel.'}>
                {messages.data && <ChatView messages={messages.data.messages} />}
              </ViewState>
            )}
          </section>
        </div>
      </ViewState>
    </>
  );
}
