// Server-side write timestamps (microseconds), strictly increasing like Cassandra's
// ClientState.getTimestamp, so two writes from this node never tie.

let last = 0;

export function nextWriteTimestamp(): number {
  const now = Date.now() * 1000;
  last = now > last ? now : last + 1;
  return last;
}

export function nowInSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
