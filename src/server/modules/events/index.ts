/**
 * What other modules read of the event log's table. They come here rather than into events.repo.ts:
 * a module never imports another module's repo (biome.json).
 */
export { eventsOfRun } from './events.repo.js';
