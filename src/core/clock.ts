// The one clock type: milliseconds since the epoch, asked for when needed (tests pass a fixed or stepping clock).
export type Clock = () => number;

export const systemClock: Clock = Date.now;
