/** "Zoë Łukasiewicz" → "Z** Ł**********": first letter of each word, by code point (any script). */
export function maskName(name: string): string {
  return name
    .trim()
    .split(/\s+/u)
    .filter(Boolean)
    .map((word) => {
      const chars = Array.from(word);
      return chars[0] + '*'.repeat(Math.max(chars.length - 1, 0));
    })
    .join(' ');
}
