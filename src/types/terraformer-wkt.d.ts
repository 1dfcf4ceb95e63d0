// @terraformer/wkt ships no type declarations; this covers the one call we use.
declare module '@terraformer/wkt' {
  /** Parses WKT text into a GeoJSON geometry; throws an Error with a parser message on bad input. */
  export function wktToGeoJSON(wkt: string): { type: string; coordinates: unknown; properties?: Record<string, unknown> };
}
