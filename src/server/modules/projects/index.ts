/**
 * What other modules read of projects. They come here rather than into projects.repo.ts: a module
 * never imports another module's repo (biome.json).
 */
export { defaultBranchOf, findOwnedProject, type ProjectRow } from './projects.repo.js';
