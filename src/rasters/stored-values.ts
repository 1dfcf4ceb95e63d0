/**
 * Stored values into the layer's unit (scale and offset), at the precision the storage has.
 * Free of node:* imports: it is bundled for the browser.
 */

/**
 * Stored value → value in the layer's unit. Results are rounded to the
 * precision the storage has (e.g. 0.1 °C for scale 0.1) so JSON carries no
 * float noise like 12.300000000000001; means get three more decimals,
 * because an area-weighted mean is finer than one stored step.
 */
export function valueDecoder(layer: { scale: number; offset: number }): (raw: number, isMean: boolean) => number {
  const digits = Math.min(10, Math.max(decimalsOf(layer.scale), decimalsOf(layer.offset)));
  const plain = 10 ** digits;
  const fine = 10 ** Math.min(12, digits + 3);
  return (raw, isMean) => {
    const v = raw * layer.scale + layer.offset;
    const f = isMean ? fine : plain;
    return Math.round(v * f) / f;
  };
}

function decimalsOf(x: number): number {
  for (let d = 0; d <= 10; d++) if (Math.abs(Math.round(x * 10 ** d) - x * 10 ** d) < 1e-9 * 10 ** d) return d;
  return 10;
}
