/**
 * The seasons and base temperatures of the agro-climatic layers (growing
 * degree days, chill), defined once: the demo build computes the layers with
 * them, the app describes the layers with them, and the station indices'
 * defaults agree with them (docs/layers.md, docs/indices.md).
 */

/** GDD base temperatures in °C per gdd sub-type. */
export const GDD_BASE: Record<'apples' | 'citrus' | 'grapes', number> = {
  // 4.5 °C: the usual apple phenology base (≈ 40 °F).
  apples: 4.5,
  // 13 °C: citrus heat units (≈ 55 °F, 12.8 °C, rounded as South African practice does).
  citrus: 13,
  // 10 °C: Winkler's base for grapevines.
  grapes: 10,
};

/**
 * Growing season of every gdd sub-type: 1 September of the previous year
 * to 31 March of the labelled year (the southern-hemisphere fruit and vine
 * season as used in South Africa), so season "2024" is 2023-09-01..2024-03-31.
 */
export const GDD_SEASON = { startMonth: 9, startDay: 1, endMonth: 3, endDay: 31 } as const;

/** Chill season: 1 May to 31 August of the labelled year; interim variants stop at 30 June. */
export const CHILL_SEASON = {
  startMonth: 5,
  startDay: 1,
  endMonth: 8,
  endDay: 31,
  interimEndMonth: 6,
  interimEndDay: 30,
} as const;
