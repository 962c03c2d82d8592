/**
 * `text` as PostgreSQL stores it: a lone surrogate (not valid UTF-16, so not encodable as UTF-8)
 * becomes U+FFFD, as the driver's encoding makes it. What a statement returns is matched to what
 * was sent by this form (two ids that differ only in lone surrogates are one row).
 */
export function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
