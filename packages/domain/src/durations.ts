/** "4m 10s", "1h 2m", "3d 4h"; "0s" for less than a second. */
export function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const units: [number, string][] = [
    [Math.floor(seconds / 86_400), "d"],
    [Math.floor(seconds / 3_600) % 24, "h"],
    [Math.floor(seconds / 60) % 60, "m"],
    [seconds % 60, "s"],
  ];
  const first = units.findIndex(([n]) => n > 0);
  if (first < 0) return "0s";
  return units
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join(" ");
}

/** "2026-05-01 10:00:00 UTC": how messages and errors show a time, the same in every zone. */
export const formatTime = (date: Date): string => `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
