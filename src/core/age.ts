/** How long ago, in the largest whole unit: 42s, 5m, 3h, 2d. */
export function formatAge(fromIso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(fromIso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

/** A span in words, to the minute: `3 h 5 min`, `2 days 4 h`, `under a minute`. */
export function formatSpan(ms: number): string {
  const minutes = Math.floor(Math.abs(ms) / 60_000);
  if (minutes < 1) return "under a minute";
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return hours > 0 ? `${days} day${days === 1 ? "" : "s"} ${hours} h` : `${days} day${days === 1 ? "" : "s"}`;
  return hours > 0 ? (rest > 0 ? `${hours} h ${rest} min` : `${hours} h`) : `${rest} min`;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const two = (value: number) => String(value).padStart(2, "0");

/**
 * A moment in the local time zone (the user's: TZ), as short as it can be told apart from now: `22:32` today, `Tue
 * 09:00` within the week, else `2026-12-15 09:00`.
 */
export function formatClock(iso: string, now: number): string {
  const when = new Date(iso);
  const today = new Date(now);
  const time = `${two(when.getHours())}:${two(when.getMinutes())}`;
  const sameDay = when.toDateString() === today.toDateString();
  if (sameDay) return time;
  if (Math.abs(when.getTime() - now) < 6 * 86_400_000) return `${WEEKDAYS[when.getDay()]} ${time}`;
  return `${when.getFullYear()}-${two(when.getMonth() + 1)}-${two(when.getDate())} ${time}`;
}
