/** A layer's reason in front of the reasons of the layers under it (`ModelResult.route`). */
export function joinRoute(part: string, inner: string | undefined): string {
  return inner === undefined || inner === '' ? part : `${part}; ${inner}`;
}
