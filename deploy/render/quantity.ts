/**
 * Kubernetes resource quantities (`100m`, `128Mi`), the subset the values accept for CPU and
 * memory. Its own module because the benchmarks read the rendered limits with it too.
 */
const QUANTITY = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;
const QUANTITY_FACTORS: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/** A quantity in cores or bytes; undefined when it is not one we accept for `kind`. */
export function parseQuantity(text: string, kind: 'cpu' | 'memory'): number | undefined {
  const m = QUANTITY.exec(text);
  if (!m) return undefined;
  const suffix = m[2] ?? '';
  // Millibytes are legal in Kubernetes but always a mistake; binary suffixes on CPU likewise.
  if (kind === 'memory' && suffix === 'm') return undefined;
  if (kind === 'cpu' && suffix !== '' && suffix !== 'm') return undefined;
  return Number(m[1]) * (QUANTITY_FACTORS[suffix] ?? 1);
}
