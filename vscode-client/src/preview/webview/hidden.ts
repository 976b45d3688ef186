// Hidden characters in prompt text, made visible in the preview (the webview must not render
// them invisibly). Mirrors server/agentv_lsp/hidden_chars.py: format characters (Cf) and
// default-ignorables, except what legitimate text needs in its context (a variation selector
// after a visible character, one ZWJ/ZWNJ between visible non-ASCII characters, LRM/RLM/ALM on
// a line with right-to-left letters, an emoji subdivision flag's tags).

const HIDDEN = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const PREPENDED_MARKS = new Set([0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06dd, 0x070f, 0x0890, 0x0891, 0x08e2, 0x110bd, 0x110cd]);
const BIDI_MARKS = new Set([0x200e, 0x200f, 0x061c]);
const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}]/u;
const LETTER = /\p{L}/u;
const SPACE = /\s/u;
const BREAKS = new Set([0x0a, 0x0d, 0x1c, 0x1d, 0x1e, 0x85, 0x2029]);

export function isHidden(cp: number): boolean {
  return cp >= 0xad && !PREPENDED_MARKS.has(cp) && HIDDEN.test(String.fromCodePoint(cp));
}

function isVariationSelector(cp: number): boolean {
  return (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x180b && cp <= 0x180d) || cp === 0x180f || (cp >= 0xe0100 && cp <= 0xe01ef);
}

function visible(cp: number | undefined): boolean {
  return cp !== undefined && !isHidden(cp) && !SPACE.test(String.fromCodePoint(cp));
}

/** For each code point of `text`: true where it is a hidden character to mark. */
export function hiddenFlags(chars: number[]): boolean[] {
  const n = chars.length;
  const ok: boolean[] = new Array(n).fill(false);
  const rtlLines = new Set<number>();
  let line = 0;
  for (const cp of chars) {
    if (BREAKS.has(cp)) line++;
    else if (cp >= 0x590 && RTL_LETTER.test(String.fromCodePoint(cp)) && LETTER.test(String.fromCodePoint(cp))) rtlLines.add(line);
  }
  line = 0;
  for (let i = 0; i < n; i++) {
    const cp = chars[i];
    if (BREAKS.has(cp)) line++;
    else if (isVariationSelector(cp)) ok[i] = visible(chars[i - 1]) && !(i + 1 < n && isVariationSelector(chars[i + 1]));
    else if (cp === 0x200c || cp === 0x200d) {
      let j = i - 1;
      while (j >= 0 && isVariationSelector(chars[j]) && ok[j]) j--;
      const before = j >= 0 ? chars[j] : undefined;
      const after = chars[i + 1];
      ok[i] = visible(before) && visible(after) && (before ?? 0) > 0x7f && (after ?? 0) > 0x7f;
    } else if (BIDI_MARKS.has(cp)) ok[i] = rtlLines.has(line);
    else if (cp === 0x1f3f4) {
      let j = i + 1;
      while (j < n && ((chars[j] >= 0xe0061 && chars[j] <= 0xe007a) || (chars[j] >= 0xe0030 && chars[j] <= 0xe0039))) j++;
      if (j - i - 1 >= 3 && j - i - 1 <= 7 && chars[j] === 0xe007f) {
        for (let k = i + 1; k <= j; k++) ok[k] = true;
        i = j;
      }
    }
  }
  return chars.map((cp, i) => isHidden(cp) && !ok[i]);
}

export function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** `text` as pieces: plain strings, and hidden code points to show as ⟦U+202E⟧. */
export function splitHidden(text: string): (string | number)[] {
  const chars = Array.from(text, (c) => c.codePointAt(0) ?? 0);
  if (!chars.some(isHidden)) return [text];
  const flags = hiddenFlags(chars);
  const out: (string | number)[] = [];
  let plain = "";
  chars.forEach((cp, i) => {
    if (flags[i]) {
      if (plain) out.push(plain);
      plain = "";
      out.push(cp);
    } else plain += String.fromCodePoint(cp);
  });
  if (plain) out.push(plain);
  return out;
}
