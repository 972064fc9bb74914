/** A channel's messages as a chat, oldest at the top, kept scrolled to the newest at the bottom. */
import React, { useEffect, useRef } from 'react';
import { ChatMessage } from './ChatMessage';

export function ChatView({ messages }) {
  const ref = useRef(null);
  const stick = useRef(true);
  const ordered = messages.slice().reverse();
  const newest = messages.length ? messages[0].hashes[0] : null;
  useEffect(() => {
    // Follow new messages only when the reader is already at the bottom.
    const element = ref.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [newest]);
  const onScroll = () => {
    const element = ref.current;
    stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
  };
  return (
    <div className="chat" ref={ref} onScroll={onScroll} data-testid="chat">
      {ordered.map((message) => <ChatMessage key={message.hashes[0]} message={message} />)}
    </div>
  );
}
