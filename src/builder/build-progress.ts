/**
 * What a long build says while it works: each step as it starts (`step`) and how far it is within
 * it (`detail`: "120 of 600"). A command turns these into a progress line (src/node/heartbeat.ts);
 * a caller that passes nothing hears nothing.
 */
export type BuildProgress = (step: string, detail?: string) => void;

/** The progress of a caller that asked for none. */
export const quiet: BuildProgress = () => undefined;
